/**
 * Keeps a folder's wings below it. In each folder named in the options (src/action, src/gateway, ...), a
 * subfolder is a wing; a file directly in the folder is either a base (it imports no wing: shared types,
 * constants) or the top (it assembles wings: the entry, the gateway, the verification). A wing may import
 * bases and other wings, never the top ("an arrow up"), and the wings' imports among themselves form no cycle.
 */
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { importsOf } from './import-graph.js';

/** The folder `file` is a wing of, and the wing's name; null when it is in no wing of these folders. */
function placeOf(file, folders) {
  for (const folder of folders) {
    const rest = relative(folder, file);
    if (rest.startsWith('..') || rest === '') continue;
    const parts = rest.split(sep);
    return { folder, wing: parts.length > 1 ? parts[0] : null };
  }
  return null;
}

function filesUnder(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else if (/\.m?ts$/.test(name)) out.push(path);
  }
  return out;
}

/** wing -> the wings its files import, for one folder. */
function wingGraph(folder) {
  const edges = new Map();
  for (const name of readdirSync(folder)) {
    const dir = join(folder, name);
    if (!statSync(dir).isDirectory()) continue;
    const targets = new Set();
    for (const file of filesUnder(dir))
      for (const target of importsOf(file)) {
        const place = placeOf(target, [folder]);
        if (place?.wing && place.wing !== name) targets.add(place.wing);
      }
    edges.set(name, targets);
  }
  return edges;
}

/** The chain of wings from `from` to `to`, or null. */
function wingPath(edges, from, to) {
  const parent = new Map([[from, null]]);
  const queue = [from];
  while (queue.length > 0) {
    const at = queue.shift();
    if (at === to) {
      const chain = [];
      for (let step = at; step !== null; step = parent.get(step)) chain.unshift(step);
      return chain;
    }
    for (const next of edges.get(at) ?? [])
      if (!parent.has(next)) {
        parent.set(next, at);
        queue.push(next);
      }
  }
  return null;
}

const isTop = (file, folder) => importsOf(file).some((target) => placeOf(target, [folder])?.wing != null);

export default {
  meta: {
    type: 'problem',
    docs: { description: "a folder's wings import neither its top nor each other in a cycle" },
    schema: [{ type: 'object', properties: { folders: { type: 'array', items: { type: 'string' } } } }],
    messages: {
      up: '{{wing}} imports {{target}}, which assembles the wings of {{folder}}: an arrow up',
      cycle: 'wing cycle in {{folder}}: {{chain}}',
    },
  },
  create(context) {
    const folders = (context.options[0]?.folders ?? []).map((f) => resolve(context.cwd, f));
    return {
      Program(node) {
        const file = resolve(context.filename);
        const place = placeOf(file, folders);
        if (place?.wing == null) return;
        const { folder, wing } = place;
        const shown = (path) => relative(context.cwd, path);
        for (const target of importsOf(file)) {
          const to = placeOf(target, [folder]);
          if (to === null) continue;
          if (to.wing === null && dirname(target) === folder && isTop(target, folder))
            context.report({
              node,
              messageId: 'up',
              data: { wing: shown(file), target: shown(target), folder: shown(folder) },
            });
          if (to.wing !== null && to.wing !== wing) {
            const back = wingPath(wingGraph(folder), to.wing, wing);
            if (back !== null)
              context.report({
                node,
                messageId: 'cycle',
                data: { folder: shown(folder), chain: [wing, ...back].join(' -> ') },
              });
          }
        }
      },
    };
  },
};
