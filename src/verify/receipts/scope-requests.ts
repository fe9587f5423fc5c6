import type { ScopeRequest } from '../types.js';
import { codeBlock, inlineText } from './escape.js';

/** Beyond this the proposed file is not shown whole: the table still lists every request. */
const MAX_PROPOSAL_CHARS = 64 * 1024;

/**
 * The job summary's section on the agents' request_scope calls: each request with its reason, and
 * perimeters.yml with the globs added to the perimeters' write lists, ready for the owner to commit (null:
 * no valid change could be made, the table alone). Agents choose the text: nothing in it may format.
 */
export function renderScopeRequests(
  requests: readonly ScopeRequest[],
  proposal: string | null,
  file: string,
): string {
  if (requests.length === 0) return '';
  const rows = requests.map(
    (r) => `| ${inlineText(r.perimeter)} | ${inlineText(r.glob)} | ${inlineText(r.reason)} |`,
  );
  const lines = [
    '',
    `### Scope requests (${requests.length})`,
    '',
    'Agents asked to write more; nothing was granted. To grant, commit this change to the trusted ref:',
    '',
    '| perimeter | write | reason |',
    '| --- | --- | --- |',
    ...rows,
    '',
  ];
  if (proposal !== null && proposal.length <= MAX_PROPOSAL_CHARS)
    lines.push(
      `${inlineText(file)} with the requested globs added (\`perimeter check\` accepts it):`,
      '',
      codeBlock(proposal, 'yaml'),
      '',
    );
  else lines.push(`Add the globs to the perimeters' \`write\` lists in ${inlineText(file)} by hand.`, '');
  return lines.join('\n');
}
