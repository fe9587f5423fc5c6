import { RANK, type Finding } from './finding.js';
import { isPlaceholder, isTypeAnnotation } from './placeholders.js';

/**
 * Values assigned to settings named for secrets: `password: x`, `"api_key": "x"`, `DB_PASS=x`,
 * `token := "x"`, `clientSecret => 'x'`, `<password>x</password>`, `--token x`.
 * References and placeholders stay (`${VAR}`, `process.env.X`, `os.environ[...]`, `changeme`...).
 */

const KEY_QUALIFIERS = new Set([
  'access',
  'secret',
  'signing',
  'encryption',
  'master',
  'account',
  'client',
  'session',
  'auth',
  'app',
  'shared',
  'storage',
  'license',
  'service',
  'consumer',
  'webhook',
  'hmac',
  'jwt',
]);

/** Trailing words that say how a secret is stored, not what it is: `password_b64`, `secret_key_base`. */
const ENCODING_WORDS = new Set([
  'base',
  'value',
  'b64',
  'base64',
  'hex',
  'raw',
  'enc',
  'encoded',
  'plain',
  'plaintext',
]);

/** Trailing words that say where or which, not what: `NAME_PASSWORD_PROD`, `db_token_2`. */
const QUALIFIER_WORDS = new Set([
  'prod',
  'production',
  'dev',
  'development',
  'stage',
  'staging',
  'test',
  'testing',
  'qa',
  'uat',
  'local',
  'live',
  'sandbox',
  'preview',
  'primary',
  'secondary',
  'backup',
  'old',
  'new',
  'next',
  'prev',
  'previous',
  'current',
  'default',
  'main',
  'ro',
  'rw',
]);

/** The kind of secret a setting's name announces, or null for any other name. */
export function secretKindOfName(name: string): string | null {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  for (let last = words.at(-1); words.length > 1 && last !== undefined; last = words.at(-1)) {
    if (ENCODING_WORDS.has(last) || QUALIFIER_WORDS.has(last) || /^\d+$/.test(last)) words.pop();
    else break;
  }
  // `password2`, `token1`: a number glued to the name
  if (words.length > 0) words[words.length - 1] = words.at(-1)!.replace(/(?<=[a-z])\d{1,3}$/, '');
  const last = words.at(-1);
  const before = words.at(-2);
  if (last === undefined) return null;
  if (/(?:password|passwd|passphrase|passcode)$/.test(last) || ['pwd', 'pass', 'pw'].includes(last))
    return 'password';
  if (last.endsWith('secret')) return 'secret';
  if (last.endsWith('token') || ['pat', 'auth', 'authorization', 'bearer'].includes(last)) return 'token';
  if (['credential', 'credentials', 'creds'].includes(last)) return 'credential';
  if (last.endsWith('apikey') || (last === 'key' && before === 'api')) return 'API key';
  if (last.endsWith('privatekey') || (last === 'key' && before === 'private')) return 'private key';
  if (last === 'key' && before !== undefined && KEY_QUALIFIERS.has(before)) return 'secret key';
  if (/(?:access|secret|signing|encryption|master|account|client|session)key$/.test(last))
    return 'secret key';
  return null;
}

/** Every name secretKindOfName accepts holds one of these: only names around them are examined. */
const NAME_STEM = /pass|pwd|pw|secret|token|auth|cred|key|bearer|pat/gi;
const NAME_CHAR = /[A-Za-z0-9_.$@-]/;
/** At a name's start (with its opening quote, JSON-escaped or not): the name, then an assignment. */
const ASSIGNMENT_AT =
  /(\\?["'`]?)([A-Za-z_$@][A-Za-z0-9_.$@-]{0,100})\1\]?[ \t]*\??[ \t]*(?::=|===?|=>|=|:)(?![=:])[ \t]*/y;

/**
 * Assignments to names that may announce a secret, as `[start of the match, name, start of the value]`.
 * Names are found around stems; a name is examined once, and nothing inside a value already hidden.
 */
function* assignments(text: string, coveredTo: () => number): Generator<[number, string, number]> {
  let examinedTo = 0;
  for (const stem of text.matchAll(NAME_STEM)) {
    let start = stem.index ?? 0;
    const floor = Math.max(examinedTo, coveredTo());
    if (start < floor) continue;
    let end = start;
    while (start > floor && NAME_CHAR.test(text[start - 1] ?? '')) start--;
    while (end < text.length && NAME_CHAR.test(text[end] ?? '')) end++;
    examinedTo = end;
    // `--password=x`: a flag's dashes are no part of its name
    while (text[start] === '-' && start < end) start++;
    let at = start;
    if (`"'\``.includes(text[at - 1] ?? 'x')) at -= text[at - 2] === '\\' ? 2 : 1;
    ASSIGNMENT_AT.lastIndex = at;
    const m = ASSIGNMENT_AT.exec(text);
    if (m) yield [at, m[2] ?? '', at + m[0].length];
  }
}

const XML_ELEMENT = /<([A-Za-z_][A-Za-z0-9_.-]{0,100})>([^<\n]{1,4096})<\/\1>/g;
const CLI_FLAG = /(?<![A-Za-z0-9_-])--([A-Za-z][A-Za-z0-9-]{0,60})[ \t]+(?=[^\s-])/g;
/** A name/value pair on two lines, as in Kubernetes and Actions `env:` lists: `- name: API_TOKEN` / `value: x`. */
const NAME_VALUE_PAIR =
  /\bname:[ \t]*["']?([A-Za-z_][A-Za-z0-9_.-]{0,100})["']?[ \t]*\r?\n[ \t]*(?:-[ \t]+)?value:[ \t]*/g;
/** Dockerfile `ENV NAME value` (the `ENV NAME=value` form is an ordinary assignment). */
const DOCKER_ENV = /^[ \t]*ENV[ \t]+([A-Za-z_][A-Za-z0-9_]{0,100})[ \t]+(?=[^\s=])/gm;
/** A call whose first argument names a secret and whose second is a literal: `define('DB_PASSWORD', 'x')`, `setenv("TOKEN", "x")`. */
const CALL_ARGUMENTS = /\([ \t]*(["'])([A-Za-z_][A-Za-z0-9_.-]{0,100})\1[ \t]*,[ \t]*(?=["'])/g;
/** `curl -u user:password`, `--user user:password`: the password. */
const USER_FLAG = /(?<![A-Za-z0-9_-])(?:-u|--user)[ \t]+["']?[^\s:"']{1,100}:(?=[^\s"'])/g;

const MAX_VALUE = 4096;
const FIRST_LOOK = 256;
/** An expression that refers to the secret elsewhere: `config.password`, `os.environ["X"]`, `getToken()`. */
const CODE_REFERENCE =
  /^(?:[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*|\[[^\]]{0,200}\])+;?|.*\(.*|\*[\w-]+|![A-Za-z]\w*(?:\s.*)?)$/s;
const BLOCK_SCALAR = /^[|>][-+0-9]{0,3}$/;
/** Unquoted values that start as a reference: `${VAR}`, `${{ secrets.X }}`, `{{ var }}`, `$VAR`, `%VAR%`, `a.b`, `a[`, `f(`. */
const LEADING_REFERENCE =
  /^(?:\$\{|\{\{|\$[A-Za-z_(]|%[A-Za-z_]\w*%|[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$]|\[|[ \t]*\())/;

interface Span {
  start: number;
  end: number;
}

/** The end of the line at `from`, looking no further than MAX_VALUE characters. */
function lineEnd(text: string, from: number): number {
  const newline = text.slice(from, from + MAX_VALUE).indexOf('\n');
  return newline === -1 ? Math.min(text.length, from + MAX_VALUE) : from + newline;
}

function quotedValue(text: string, at: number): Span | null {
  const escaped = text[at] === '\\';
  const quote = text[escaped ? at + 1 : at];
  if (quote === undefined || !`"'\``.includes(quote)) return null;
  const triple = !escaped && text.startsWith(quote.repeat(3), at);
  const start = at + (escaped ? 2 : triple ? 3 : 1);
  const stop = lineEnd(text, start);
  for (let i = start; i < stop; i++) {
    if (escaped ? text[i] === '\\' && text[i + 1] === quote : text[i] === quote && text[i - 1] !== '\\') {
      return { start, end: i };
    }
  }
  return { start, end: stop };
}

/** Unquoted: the rest of the line, up to a comment, a separator, a closing bracket or a JSON escape. */
function bareValue(text: string, at: number, max: number): Span & { capped: boolean } {
  const window = text.slice(at, at + max);
  const cut = /[ \t]+(?:#|\/\/)|[,;)}\]\r\n]|\\[nrt"]/.exec(window);
  const value = cut ? window.slice(0, cut.index) : window;
  return { start: at, end: at + value.trimEnd().length, capped: !cut && window.length === max };
}

/** A YAML block scalar (`password: |`): the lines indented deeper than the key's line. */
function blockValue(text: string, keyAt: number, after: number): Span | null {
  const lineStart = text.lastIndexOf('\n', keyAt) + 1;
  const indent = /^[ \t]*/.exec(text.slice(lineStart, keyAt))?.[0].length ?? 0;
  let end = lineEnd(text, after);
  const start = end + 1;
  let last = -1;
  while (end < text.length) {
    const next = end + 1;
    const nextEnd = lineEnd(text, next);
    const line = text.slice(next, nextEnd);
    if (line.trim() !== '' && (/^[ \t]*/.exec(line)?.[0].length ?? 0) <= indent) break;
    if (line.trim() !== '') last = nextEnd;
    end = nextEnd;
  }
  return last === -1 ? null : { start, end: last };
}

function assignedValue(text: string, keyAt: number, valueAt: number): Span | null {
  const quoted = quotedValue(text, valueAt);
  if (quoted) {
    const value = text.slice(quoted.start, quoted.end);
    return isPlaceholder(value) ? null : quoted;
  }
  if (LEADING_REFERENCE.test(text.slice(valueAt, valueAt + 70))) return null;
  // decide on a short look; read the whole value only when it is to be hidden (keeps the scan linear)
  const bare = bareValue(text, valueAt, FIRST_LOOK);
  const value = text.slice(bare.start, bare.end);
  if (BLOCK_SCALAR.test(value)) return blockValue(text, keyAt, valueAt);
  if (
    /^\d{1,3}$/.test(value) ||
    /^[[{]/.test(value) ||
    (value.startsWith('!') && !value.startsWith('!vault'))
  )
    return null;
  if (isPlaceholder(value) || isTypeAnnotation(value) || CODE_REFERENCE.test(value)) return null;
  return bare.capped ? bareValue(text, valueAt, MAX_VALUE) : bare;
}

export function settingFindings(text: string): Finding[] {
  const found: Finding[] = [];
  const add = (span: Span | null, kind: string): void => {
    if (span && span.end > span.start) found.push({ ...span, kind, credential: false, rank: RANK.setting });
  };
  let hiddenTo = 0;
  for (const [at, name, valueAt] of assignments(text, () => hiddenTo)) {
    const kind = secretKindOfName(name);
    let span = kind ? assignedValue(text, at, valueAt) : null;
    // `--password=x https://...`: a flag's value is one word
    if (span && text[at - 1] === '-' && !`"'`.includes(text[span.start - 1] ?? '')) {
      const space = text.slice(span.start, span.end).search(/\s/);
      if (space !== -1) span = { start: span.start, end: span.start + space };
    }
    if (kind && span) {
      add(span, kind);
      hiddenTo = span.end;
    }
  }
  for (const pattern of [NAME_VALUE_PAIR, DOCKER_ENV]) {
    for (const m of text.matchAll(pattern)) {
      const kind = secretKindOfName(m[1] ?? '');
      const at = (m.index ?? 0) + m[0].length;
      if (kind && at >= hiddenTo) add(assignedValue(text, m.index ?? 0, at), kind);
    }
  }
  for (const m of text.matchAll(CALL_ARGUMENTS)) {
    const kind = secretKindOfName(m[2] ?? '');
    const span = kind ? quotedValue(text, (m.index ?? 0) + m[0].length) : null;
    if (kind && span && !isPlaceholder(text.slice(span.start, span.end))) add(span, kind);
  }
  for (const m of text.matchAll(USER_FLAG)) {
    const at = (m.index ?? 0) + m[0].length;
    const value = /^[^\s"']{1,256}/.exec(text.slice(at, at + 256))?.[0] ?? '';
    if (!isPlaceholder(value) && !LEADING_REFERENCE.test(value))
      add({ start: at, end: at + value.length }, 'password');
  }
  for (const m of text.matchAll(XML_ELEMENT)) {
    const kind = secretKindOfName(m[1] ?? '');
    const value = m[2] ?? '';
    if (kind && !isPlaceholder(value)) {
      const start = (m.index ?? 0) + (m[1] ?? '').length + 2;
      add({ start, end: start + value.length }, kind);
    }
  }
  for (const m of text.matchAll(CLI_FLAG)) {
    const kind = secretKindOfName(m[1] ?? '');
    if (!kind) continue;
    const at = (m.index ?? 0) + m[0].length;
    const quoted = quotedValue(text, at);
    const span = quoted ?? {
      start: at,
      end: at + (/^[^\s]+/.exec(text.slice(at, at + MAX_VALUE))?.[0].length ?? 0),
    };
    if (!isPlaceholder(text.slice(span.start, span.end))) add(span, kind);
  }
  return found;
}
