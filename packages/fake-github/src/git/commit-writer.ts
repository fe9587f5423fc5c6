import type { FakeRepo } from '../repo.js';
import { noreplyEmail, WEB_FLOW } from '../shapes.js';
import { signAsWebFlow } from '../web-flow-key.js';

export interface Identity {
  name: string;
  email: string;
  date: string;
}

function gitPerson(person: Identity): string {
  const clean = (s: string): string => s.replace(/[<>\n]/g, '');
  return `${clean(person.name)} <${clean(person.email)}> ${Math.floor(Date.parse(person.date) / 1000)} +0000`;
}

/**
 * Writes a commit object as GitHub makes one for the API: without a custom author or committer it is
 * authored by the token's actor, committed by web-flow and signed (shown Verified); a given author or
 * committer is used as given and the commit is not signed.
 */
export async function writeCommit(
  repo: FakeRepo,
  commit: {
    tree: string;
    parents: string[];
    message: string;
    actor: string;
    author?: Identity;
    committer?: Identity;
    now?: string;
  },
): Promise<string> {
  const now = commit.now ?? new Date().toISOString();
  const { author, committer } = commit;
  const signed = !author && !committer;
  const botAuthor = { name: commit.actor, email: noreplyEmail(commit.actor), date: now };
  const lines = [`tree ${commit.tree}`, ...commit.parents.map((p) => `parent ${p}`)];
  lines.push(`author ${gitPerson(author ?? botAuthor)}`);
  lines.push(`committer ${gitPerson(committer ?? author ?? { ...WEB_FLOW, date: now })}`);
  let text = `${lines.join('\n')}\n\n${commit.message}`;
  if (signed) {
    const signature = signAsWebFlow(text).split('\n');
    text = `${lines.join('\n')}\ngpgsig ${signature.join('\n ')}\n\n${commit.message}`;
  }
  return repo.hashObject('commit', Buffer.from(text, 'utf8'));
}
