import * as core from '@actions/core';
import { isMap, isScalar, LineCounter, parseDocument, type Node } from 'yaml';
import type { Config, ConfigError, ExposureError } from '../policy/index.js';
import { type RepoCoordinates, type RepoReads, UpstreamError } from '../github/index.js';
import { Inputs } from './constants.js';

/** A failure already explained to the user (annotations written); main only has to fail the step. */
export class ActionError extends Error {
  override name = 'ActionError';
}

/** perimeters.yml as committed at `ref`, read through the API: the workspace is the agent's to change. */
export async function readConfigFile(
  upstream: RepoCoordinates & RepoReads,
  file: string,
  ref: string,
): Promise<{ text: string; sha: string }> {
  try {
    return await upstream.getFileAtRef(file, ref);
  } catch (error) {
    throw notFound(error, upstream, file, ref);
  }
}

/**
 * The default branch and perimeters.yml at `ref` (null: on the default branch), in one request where the
 * Upstream can (getRepositoryFile), else two.
 */
export async function readRepositoryConfig(
  upstream: RepoCoordinates & RepoReads,
  file: string,
  ref: string | null,
): Promise<{ defaultBranch: string; ref: string; commit: string | null; text: string; sha: string }> {
  if (!upstream.getRepositoryFile) {
    const { defaultBranch } = await upstream.getRepository();
    const at = ref ?? defaultBranch;
    return { defaultBranch, ref: at, commit: null, ...(await readConfigFile(upstream, file, at)) };
  }
  try {
    const read = await upstream.getRepositoryFile(file, ref);
    const { defaultBranch, commit } = read;
    return { defaultBranch, ref: read.ref, commit, text: read.file.text, sha: read.file.sha };
  } catch (error) {
    // the default branch is known by then (the same answer named it): the message names it
    const at =
      ref ?? (await upstream.getRepository().catch(() => null))?.defaultBranch ?? 'the default branch';
    throw notFound(error, upstream, file, at);
  }
}

function notFound(error: unknown, upstream: RepoCoordinates, file: string, ref: string): unknown {
  if (error instanceof UpstreamError && error.code === 'not_found') {
    return new ActionError(
      `${file} was not found at ${JSON.stringify(ref)} in ${upstream.owner}/${upstream.repo} ` +
        `(inputs ${Inputs.Config} and ${Inputs.ConfigRef}); commit it to that ref first`,
    );
  }
  return error;
}

export interface Annotation {
  message: string;
  title: string;
  file: string;
  startLine: number;
  startColumn: number;
}

export interface Refusal {
  message: string;
  annotations: Annotation[];
}

/** Writes the refusal's annotations; returns the error that fails the step. */
export function annotated(refusal: Refusal): ActionError {
  for (const { message, ...properties } of refusal.annotations) core.error(message, properties);
  return new ActionError(refusal.message);
}

/** An invalid perimeters.yml: one annotation per problem, on its line. */
export function explainConfigError(error: ConfigError, file: string): Refusal {
  const count = error.problems.length;
  return {
    message: `${file} is invalid (${count} problem${count === 1 ? '' : 's'}):\n${error.message}`,
    annotations: error.problems.map((p) => ({
      message: `${p.key}: ${p.message}`,
      title: `invalid ${p.file}`,
      file: p.file,
      startLine: p.line,
      startColumn: p.column,
    })),
  };
}

/**
 * A refused selection, naming the input at fault; a refused branch is annotated on each `branches` line (on
 * the perimeter's own line when it has none).
 */
export function explainExposureError(
  error: ExposureError,
  config: Config,
  text: string,
  branch: string,
): Refusal {
  if (error.code !== 'branch-not-allowed' && error.code !== 'default-branch-not-named')
    return { message: `${Inputs.Perimeters}: ${error.message}`, annotations: [] };
  const annotations: Annotation[] = [];
  for (const name of error.perimeters) {
    const at = keyPosition(text, ['perimeters', name, 'branches']) ?? keyPosition(text, ['perimeters', name]);
    if (at === null) continue;
    const branches = config.perimeters.find((p) => p.name === name)?.branches ?? null;
    const message =
      error.code === 'branch-not-allowed'
        ? `branch ${JSON.stringify(branch)} is not in ${JSON.stringify(branches)}`
        : `branch ${JSON.stringify(branch)} is the default branch; ` +
          `${branches === null ? 'add branches: ' + JSON.stringify([branch]) : `${JSON.stringify(branches)} does not name it`}`;
    annotations.push({
      message,
      title: `perimeter "${name}" may not be bound to this branch`,
      file: config.file,
      startLine: at.line,
      startColumn: at.col,
    });
  }
  return { message: `${error.message} (input ${Inputs.Branch})`, annotations };
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
