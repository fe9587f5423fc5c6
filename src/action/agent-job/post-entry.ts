import { runPost } from './post.js';

await runPost();
process.exit();
