import { fileURLToPath } from 'node:url';

/**
 * The workspace packages resolved in this tree rather than through node_modules' links. StrykerJS tests a
 * copy of the tree whose node_modules links back to the original, so a rig reached through the link would
 * drive the original src/ instead of the mutated one.
 */
export const workspaceAliases = {
  '@perimeter/fake-github': fileURLToPath(new URL('./packages/fake-github/src/index.ts', import.meta.url)),
  '@perimeter/test-rigs': fileURLToPath(new URL('./packages/test-rigs/src/index.ts', import.meta.url)),
};
