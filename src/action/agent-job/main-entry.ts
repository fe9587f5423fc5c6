import { runMain } from './main.js';

await runMain();
process.exit();
