import { getCommit } from './get-commit.js';
import { getFile } from './get-file.js';
import { getFiles } from './get-files.js';
import { getTree } from './get-tree.js';
import { listCommits } from './list-commits.js';
import { pushFiles } from './push-files.js';
import type { ToolDefinition } from './definition.js';

/** Every tool the gateway knows, in the order tools/list shows them. */
export const ALL_TOOLS: readonly ToolDefinition[] = [
  getTree,
  getFile,
  getFiles,
  listCommits,
  getCommit,
  pushFiles,
];
