/**
 * Values that stand in for a secret rather than being one. Decided by the value's form alone, never
 * by comparing it with a known secret, so the answer cannot confirm a guess.
 */

/** References to somewhere else: `${VAR}`, `${{ secrets.X }}`, `$VAR`, `{{ var }}`, `%VAR%`, `$(cmd)`, `<your token>`. */
const REFERENCE = [
  /\$\{[^}]{0,200}\}/,
  /\{\{[^}]{0,200}\}\}/,
  /^\{[A-Za-z0-9_.-]{1,64}\}$/,
  /^\$[A-Za-z_][A-Za-z0-9_]{0,64}$/,
  /^%[A-Za-z_][A-Za-z0-9_]{0,64}%$/,
  /^\$\(.{0,200}\)$/,
  /^<[^<>]{0,100}>$/,
  /^\[hidden: [^\]]{1,64}\]$/,
];

/** Words that only ever mean "put a secret here" (whole value, case-insensitive, `-`/`_`/space alike). */
const PLACEHOLDER_WORDS = new Set([
  'changeme',
  'changeit',
  'change me',
  'replaceme',
  'replace me',
  'placeholder',
  'redacted',
  'dummy',
  'example',
  'sample',
  'todo',
  'tbd',
  'fixme',
  'none',
  'null',
  'nil',
  'undefined',
  'true',
  'false',
  'yes',
  'no',
  'on',
  'off',
  'required',
  'optional',
  'secret',
  'password',
  'passwd',
  'pass',
  'token',
  'your password',
  'your token',
  'your secret',
  'your api key',
  'my password',
  'read',
  'write',
  'inherit',
]);

/** Type names: `token: string`, `password?: str`, `secret: Option<String>` declare, they don't assign. */
const TYPE_WORDS = new Set([
  'string',
  'str',
  'number',
  'int',
  'integer',
  'bool',
  'boolean',
  'bytes',
  'any',
  'unknown',
  'object',
  'secretstr',
  'secretstring',
  'securestring',
  'char',
  'text',
  'varchar',
  'optional',
  'option',
  'maybe',
  'null',
  'none',
  'undefined',
  'void',
]);

export function isPlaceholder(raw: string): boolean {
  const value = raw.trim();
  if (value === '') return true;
  if (REFERENCE.some((pattern) => pattern.test(value))) return true;
  // one character repeated: xxx, ***, ..., 0000
  if (/^(.)\1{2,}$/su.test(value)) return true;
  const words = value.toLowerCase().replace(/[-_\s]+/g, ' ');
  if (PLACEHOLDER_WORDS.has(words)) return true;
  if (/^(?:x{3,}|your .{1,40}|.{1,40} here|example.{0,40}|.{0,40}example)$/.test(words)) return true;
  return false;
}

/** A type annotation rather than a value: every word of it is a type name. */
export function isTypeAnnotation(value: string): boolean {
  const words = value
    .toLowerCase()
    .split(/[\s|&<>[\]()?,]+/)
    .filter((word) => word !== '');
  return words.length > 0 && words.every((word) => TYPE_WORDS.has(word));
}
