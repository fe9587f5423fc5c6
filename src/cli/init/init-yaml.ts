import { OPTIONAL_FAMILIES, type OPTIONAL_FAMILY_NAMES } from '../../policy/index.js';
import type { Proposal } from './layout.js';

/** How many example paths a comment lists before it says "and N more". */
const SHOWN = 8;

const quote = (glob: string) => JSON.stringify(glob);
const list = (globs: string[]) => `[${globs.map(quote).join(', ')}]`;

function listed(paths: string[]): string {
  const shown = paths.slice(0, SHOWN).join(', ');
  return paths.length > SHOWN ? `${shown} and ${paths.length - SHOWN} more` : shown;
}

const WIDTH = 110;

/** `text` as comment lines of at most WIDTH characters (a longer single word stays whole). */
function comment(text: string, indent = ''): string[] {
  const lines: string[] = [];
  let line = `${indent}#`;
  for (const word of text.split(' ')) {
    if (line.length + 1 + word.length > WIDTH && line !== `${indent}#`) {
      lines.push(line);
      line = `${indent}#  `;
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}

/** The commented perimeters.yml `perimeter init` writes for a proposal. */
export function renderProposal(proposal: Proposal): string {
  const lines = [
    `# Proposed by \`perimeter init\` from this repository's tracked files. Read it, tighten it, then run`,
    '# `perimeter check` (coverage) and `perimeter replay <range>` (what recent commits each perimeter could',
    '# have made) before merging.',
    '#',
    '# Protected set: whatever the globs below say, no perimeter writes the config file itself, .github/**,',
    '# CODEOWNERS, agent instruction files (AGENTS.md, CLAUDE.md, .claude/**, ...) or git hooks; add',
    '# `allow-protected` to a perimeter only for a file an agent must really change.',
  ];
  if (proposal.protectedFiles.length > 0) {
    lines.push(
      ...comment(
        `Protected files tracked here (${proposal.protectedFiles.length}): ${listed(proposal.protectedFiles.map((f) => f.path))}.`,
      ),
    );
  }
  lines.push('version: 1');
  if (proposal.protect.length > 0) {
    lines.push('# Optional families with tracked files, protected for every perimeter:');
    for (const family of proposal.protect as Array<(typeof OPTIONAL_FAMILY_NAMES)[number]>)
      lines.push(...comment(`  ${family}: ${OPTIONAL_FAMILIES[family].why}`));
    lines.push(`protect: ${list(proposal.protect)}`);
  }
  if (proposal.unassigned.length > 0) {
    lines.push(
      ...comment(
        `Tracked files no perimeter writes (${proposal.unassigned.length}): ${listed(proposal.unassigned)}. ` +
          'Add them to a write list if an agent should change them.',
      ),
    );
  }
  lines.push('perimeters:');
  for (const role of proposal.roles) {
    lines.push(`  ${role.name}:`);
    lines.push(`    description: ${role.description}`);
    for (const why of role.evidence) lines.push(...comment(why, '    '));
    lines.push(`    read: ${list(role.read)}`);
    lines.push(`    write: ${list(role.write)}  # ${role.files} tracked file${role.files === 1 ? '' : 's'}`);
    if (role.pullRequests !== undefined) {
      lines.push(
        "    # The pull-request gate judges Copilot coding agent's pull requests by this perimeter.",
        `    pull-requests: { authors: ${list(role.pullRequests.authors)}, branches: ${list(role.pullRequests.branches)} }`,
      );
    }
    if (role.deny.length > 0) {
      lines.push(
        '    # Tests live beside the source: the implementer can neither read nor rewrite them (perimeters only',
        "    # grant, so a deny is how tests are carved out of the source's write globs).",
        `    deny: ${list(role.deny)}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
