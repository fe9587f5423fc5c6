import { runApply } from './apply-step.js';

await runApply();
process.exit();
