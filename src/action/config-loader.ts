import * as core from '@actions/core';
import { isMap, isScalar, LineCounter, parseDocument, type Node } from 'yaml';
import { compilePerimeter, ConfigError, parseConfig, type Config, type Perimeter } from '../policy/index.js';
import { UpstreamError, type Upstream } from '../github/upstream.js';
import { Inputs } from './constants.js';

/** A failure already explained to the user (annotations written); main only has to fail the step. */
export class ActionError extends Error {
  override name = 'ActionError';
}

/** perimeters.yml as committed at `ref`, read through the API: the workspace is the agent's to change. */
export async function readConfigText(upstream: Upstream, file: string, ref: string): Promise<string> {
  try {
    return (await upstream.getFileAtRef(file, ref)).text;
  } catch (error) {
    if (error instanceof UpstreamError && error.code === 'not_found') {
      throw new ActionError(
        `${file} was not found at ${JSON.stringify(ref)} in ${upstream.owner}/${upstream.repo} ` +
          `(inputs ${Inputs.Config} and ${Inputs.ConfigRef}); commit it to that ref first`,
      );
    }
    throw error;
  }
}

/** Parses the config; each problem becomes an error annotation on its line. */
export function parseConfigAnnotated(text: string, file: string): Config {
  try {
    return parseConfig(text, file);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const p of error.problems) {
      core.error(`${p.key}: ${p.message}`, {
        title: `invalid ${p.file}`,
        file: p.file,
        startLine: p.line,
        startColumn: p.column,
      });
    }
    const count = error.problems.length;
    throw new ActionError(
      `${file} is invalid (${count} problem${count === 1 ? '' : 's'}):\n${error.message}`,
    );
  }
}

/**
 * The perimeters to expose, compiled; refuses unknown names and perimeters that may not use `branch`.
 * With the config text, each refusal is also an annotation on the perimeter's `branches` line.
 */
export function selectPerimeters(
  config: Config,
  names: string[] | null,
  branch: string,
  text?: string,
): Perimeter[] {
  const defined = config.perimeters.map((p) => p.name);
  const chosen = names ?? defined;
  const unknown = chosen.filter((n) => !defined.includes(n));
  if (unknown.length > 0) {
    throw new ActionError(
      `${Inputs.Perimeters}: no perimeter named ${unknown.map((n) => JSON.stringify(n)).join(', ')} in ` +
        `${config.file}; it defines ${defined.map((n) => JSON.stringify(n)).join(', ') || 'none'}`,
    );
  }
  if (chosen.length === 0) throw new ActionError(`${config.file} defines no perimeters`);
  const perimeters = config.perimeters
    .filter((spec) => chosen.includes(spec.name))
    .map((spec) => compilePerimeter(spec, config.file));
  const refused = perimeters.filter((p) => !p.allowsBranch(branch));
  if (refused.length > 0) {
    for (const p of refused) {
      const at = text === undefined ? null : keyPosition(text, ['perimeters', p.name, 'branches']);
      if (at) {
        core.error(`branch "${branch}" is not in ${JSON.stringify(p.spec.branches)}`, {
          title: `perimeter "${p.name}" may not be bound to this branch`,
          file: config.file,
          startLine: at.line,
          startColumn: at.col,
        });
      }
    }
    const lines = refused.map(
      (p) => `perimeter "${p.name}" allows branches ${JSON.stringify(p.spec.branches)}`,
    );
    throw new ActionError(
      `branch "${branch}" is not allowed for ${refused.length === 1 ? 'this perimeter' : 'these perimeters'}: ` +
        `${lines.join('; ')} (input ${Inputs.Branch})`,
    );
  }
  return perimeters;
}

/** Line and column of the key at `path` in a YAML mapping, or null. */
function keyPosition(text: string, path: string[]): { line: number; col: number } | null {
  const lineCounter = new LineCounter();
  let node: unknown = parseDocument(text, { lineCounter }).contents;
  let key: Node | null = null;
  for (const name of path) {
    if (!isMap(node)) return null;
    const pair = node.items.find((item) => isScalar(item.key) && item.key.value === name);
    if (!pair) return null;
    key = pair.key as Node;
    node = pair.value;
  }
  return key?.range ? lineCounter.linePos(key.range[0]) : null;
}
