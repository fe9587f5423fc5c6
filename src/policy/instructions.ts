import { AGENT_FILES } from './agent-files.js';
import { foldSegment } from './path.js';

/**
 * Files coding agents read as instructions (or as prompts and rules they follow): what steers an agent
 * before it reads anything else; the `instructions` rows of AGENT_FILES. Matched at any depth (nested `AGENTS.md` files apply to their subtree),
 * case- and Unicode-insensitively. The gateway serves them from the trusted config ref unless a perimeter
 * says `instructions: branch`, so whoever could push to the bound branch before the job cannot steer
 * the agent through them.
 */
const RULES = AGENT_FILES.filter((file) => file.use === 'instructions').map((file) => file.entry);
const NAMES = RULES.filter((rule) => !rule.endsWith('/**'));
/** Directories whose every file is read as rules, prompts or agent settings. */
const DIRECTORIES = RULES.filter((rule) => rule.endsWith('/**')).map((rule) => rule.slice(0, -'/**'.length));

export const INSTRUCTION_FILE_RULES: readonly string[] = Object.freeze([
  ...NAMES,
  ...DIRECTORIES.map((dir) => `${dir}/**`),
]);

const names = new Map(NAMES.map((name) => [foldSegment(name), name]));
const directories = DIRECTORIES.map((dir) => dir.split('/').map(foldSegment));

/** The rule that makes this path an agent instruction file, or null. */
export function instructionFileRule(path: string): string | null {
  const segments = path.split('/').map(foldSegment);
  const name = names.get(segments.at(-1) ?? '');
  if (name !== undefined) return name;
  for (const [i, dir] of directories.entries()) {
    for (let at = 0; at + dir.length < segments.length; at++)
      if (dir.every((segment, k) => segments[at + k] === segment)) return `${DIRECTORIES[i]}/**`;
  }
  return null;
}
