import { runVerify } from './verify-step.js';

await runVerify();
process.exit();
