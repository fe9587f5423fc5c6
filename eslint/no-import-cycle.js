/**
 * Fails on an import cycle among the project's own modules, type-only imports included: a cycle through
 * `import type` is still a concept without one home (import-x/no-cycle skips those, so it cannot see them).
 * Relative imports only; `./x.js` resolves to `./x.ts` as NodeNext does.
 */
import { relative, resolve } from 'node:path';
import { importsOf } from './import-graph.js';

/** The shortest chain of imports from `file` back to itself, or null. */
function cycleThrough(file) {
  const parent = new Map([[file, null]]);
  const queue = [file];
  while (queue.length > 0) {
    const at = queue.shift();
    for (const next of importsOf(at)) {
      if (next === file) {
        const chain = [file];
        for (let step = at; step !== file; step = parent.get(step)) chain.splice(1, 0, step);
        return [...chain, file];
      }
      if (!parent.has(next)) {
        parent.set(next, at);
        queue.push(next);
      }
    }
  }
  return null;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'forbid import cycles, type-only imports included' },
    schema: [],
    messages: { cycle: 'import cycle: {{chain}}' },
  },
  create(context) {
    return {
      Program(node) {
        const chain = cycleThrough(resolve(context.filename));
        if (chain === null) return;
        const cwd = context.cwd;
        context.report({
          node,
          messageId: 'cycle',
          data: { chain: chain.map((f) => relative(cwd, f)).join(' -> ') },
        });
      },
    };
  },
};
