import { validatePath } from '../../policy/index.js';
import { ToolError } from '../tool-answer.js';

/** A valid repository path, or a refusal quoting what was wrong with it. */
export function requirePath(input: string, hint = ''): string {
  const check = validatePath(input);
  if (!check.ok)
    throw new ToolError(`invalid path ${JSON.stringify(input)}: ${check.reason}${hint}`, 'refused');
  return check.path;
}

/**
 * The one answer for a path that is hidden or missing: the same text in both cases, so the gateway is no
 * oracle for what it hides.
 */
export function absent(path: string): ToolError {
  return new ToolError(`${JSON.stringify(path)} not found`, 'absent');
}
