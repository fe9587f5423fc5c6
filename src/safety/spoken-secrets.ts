import { RANK, type Finding } from './finding.js';
import { isPlaceholder } from './placeholders.js';

/**
 * Secrets that no setting's syntax announces: said in prose ("The password is hunter2hunter2") or
 * given on a command line (`mysql -uroot -pS3cret`, `sshpass -p S3cret ssh host`). Hidden when read,
 * like settings' values, not refused in writes: their form alone is no proof of a credential.
 */

const PROSE =
  /\b(passwords?|passphrases?|passcodes?|passwd|pins?|api keys?|access keys?|secret keys?|tokens?|secrets?)(?:[ \t]+(?:for|of|to|on)(?:[ \t]+[^\s,;:.]{1,40}){1,4})?[ \t]+(?:is|was|are|were|will be|would be|remains)[ \t]*:?[ \t]+/gi;
const QUOTED = /^(["'`\u201c\u2018])([^"'`\u201d\u2019\n]{4,200})(?:["'`\u201d\u2019])/;
const BARE = /^[^\s"'`]{6,200}/;
const TRAILING_PUNCTUATION = /[.,;:!?)\]]+$/;
/** A word of prose is all lowercase letters (or capitalized); a secret has digits, symbols or mixed case. */
const PROSE_WORD = /^[A-Z]?[a-z]+$|^[A-Z]+$/;

function kindOfWord(word: string): string {
  const w = word.toLowerCase();
  if (/^pass|^pin/.test(w)) return 'password';
  if (w.startsWith('token')) return 'token';
  if (w.includes('key')) return 'API key';
  return 'secret';
}

function proseFindings(text: string): Finding[] {
  const found: Finding[] = [];
  for (const m of text.matchAll(PROSE)) {
    const at = (m.index ?? 0) + m[0].length;
    const rest = text.slice(at, at + 210);
    const quoted = QUOTED.exec(rest);
    let start: number;
    let value: string;
    if (quoted) {
      start = at + (quoted[1] ?? '').length;
      value = quoted[2] ?? '';
    } else {
      start = at;
      value = (BARE.exec(rest)?.[0] ?? '').replace(TRAILING_PUNCTUATION, '');
      if (value.length < 6 || PROSE_WORD.test(value)) continue;
    }
    if (isPlaceholder(value)) continue;
    found.push({
      start,
      end: start + value.length,
      kind: kindOfWord(m[1] ?? ''),
      credential: false,
      rank: RANK.setting,
    });
  }
  return found;
}

/** Tools that take a password as an argument, and how: `-pVALUE` attached, or `-p VALUE`. */
const COMMAND_LINES: ReadonlyArray<{ tools: string; flag: string; attached: boolean }> = [
  {
    tools: 'mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb|mariadb-dump|mariadb-admin',
    flag: '-p',
    attached: true,
  },
  { tools: '7z|7za|7zr', flag: '-p', attached: true },
  { tools: 'sshpass', flag: '-p', attached: false },
  { tools: 'docker|podman|nerdctl|buildah|skopeo|helm|oras|crane', flag: '-p', attached: false },
  { tools: 'mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport', flag: '-p', attached: false },
  { tools: 'redis-cli', flag: '-a', attached: false },
  { tools: 'sqlcmd|bcp', flag: '-P', attached: false },
  { tools: 'zip|unzip', flag: '-P', attached: false },
  { tools: 'openssl', flag: '-pass(?:in|out)?[ \\t]+pass:', attached: true },
];
const COMMAND_PATTERNS = COMMAND_LINES.map(
  ({ tools, flag, attached }) =>
    new RegExp(
      `(?<![\\w.-])(?:${tools})(?![\\w.-])[^\\n]{0,300}?[ \\t]${flag}${attached ? '(?=[^\\s-])' : '[ \\t]+(?=[^\\s-])'}`,
      'g',
    ),
);

function commandLineFindings(text: string): Finding[] {
  const found: Finding[] = [];
  for (const pattern of COMMAND_PATTERNS) {
    for (const m of text.matchAll(pattern)) {
      const at = (m.index ?? 0) + m[0].length;
      const rest = text.slice(at, at + 256);
      const quoted = /^(["'])([^"'\n]{1,250})\1/.exec(rest);
      const start = quoted ? at + 1 : at;
      const value = quoted ? (quoted[2] ?? '') : (/^[^\s"'`;|&)]+/.exec(rest)?.[0] ?? '');
      if (value === '' || isPlaceholder(value) || /^\$/.test(value)) continue;
      found.push({
        start,
        end: start + value.length,
        kind: 'password',
        credential: false,
        rank: RANK.setting,
      });
    }
  }
  return found;
}

export function spokenFindings(text: string): Finding[] {
  return [...proseFindings(text), ...commandLineFindings(text)];
}
