import { runVerifyAction } from './verify-mode.js';

await runVerifyAction();
process.exit();
