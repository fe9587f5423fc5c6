/**
 * The written forms a secret can take in a file, one layer at a time or nested: what the content filter
 * must see through (src/safety/encoded/layers.ts, src/safety/encoded/joined-text.ts). Shared by the tests and
 * `npm run bench:safety`, which counts how many sample-and-form pairs are hidden.
 */

/** A secret as written: the text, and the pieces of it that carry the secret (all must be hidden). */
export interface Written {
  text: string;
  pieces: string[];
}

export interface SecretEncoding {
  name: string;
  encode(value: string): Written;
}

const whole = (text: string): Written => ({ text, pieces: [text] });
const hexByte = (code: number): string => code.toString(16).padStart(2, '0');
const bytes = (text: string): number[] => [...Buffer.from(text, 'utf8')];

/** One layer: a value in, its encoding out. */
export const LAYERS = {
  base64: (v: string): string => Buffer.from(v).toString('base64'),
  base64url: (v: string): string => Buffer.from(v).toString('base64url'),
  hex: (v: string): string => Buffer.from(v).toString('hex'),
  'hex, upper case': (v: string): string => Buffer.from(v).toString('hex').toUpperCase(),
  'hex bytes with colons': (v: string): string => bytes(v).map(hexByte).join(':'),
  'URL, every byte': (v: string): string =>
    bytes(v)
      .map((b) => `%${hexByte(b).toUpperCase()}`)
      .join(''),
  'URL, every third character': (v: string): string =>
    [...v]
      .map((c, i) =>
        i % 3 === 1 || /[^A-Za-z0-9_.~-]/.test(c) ? `%${hexByte(c.charCodeAt(0)).toUpperCase()}` : c,
      )
      .join(''),
  'HTML decimal entities': (v: string): string => [...v].map((c) => `&#${c.codePointAt(0)};`).join(''),
  'HTML hex entities, some': (v: string): string =>
    [...v].map((c, i) => (i % 2 === 0 ? `&#x${c.codePointAt(0)!.toString(16)};` : c)).join(''),
  'HTML named entities': (v: string): string =>
    v.replace(
      /[_./+=:]/g,
      (c) =>
        ({
          _: '&lowbar;',
          '.': '&period;',
          '/': '&sol;',
          '+': '&plus;',
          '=': '&equals;',
          ':': '&colon;',
        })[c]!,
    ),
  '\\x escapes': (v: string): string =>
    bytes(v)
      .map((b) => `\\x${hexByte(b)}`)
      .join(''),
  '\\u escapes': (v: string): string =>
    [...v].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
} as const;

export type LayerName = keyof typeof LAYERS;

const half = (v: string): [string, string] => {
  const at = Math.floor(v.length / 2);
  return [v.slice(0, at), v.slice(at)];
};
/** A string literal as code writes it: JSON's escapes (a multi-line value becomes `\n`). */
const literal = (v: string): string => JSON.stringify(v);

/** Splits and joins: the value's characters stay, cut in two. */
export const WRAPPERS: Record<string, (value: string) => Written> = {
  'split at a line end': (v) => {
    const [a, b] = half(v);
    return { text: `${a}\n${b}`, pieces: [a, b] };
  },
  'split at a line end with a continuation': (v) => {
    const [a, b] = half(v);
    return { text: `${a}\\\n    ${b}`, pieces: [a, b] };
  },
  'joined from string literals with +': (v) => {
    const [a, b] = half(v);
    return { text: `${literal(a)} +\n  ${literal(b)}`, pieces: [a, b].map((p) => literal(p).slice(1, -1)) };
  },
  'adjacent string literals': (v) => {
    const [a, b] = half(v);
    return { text: `(${literal(a)} ${literal(b)})`, pieces: [a, b].map((p) => literal(p).slice(1, -1)) };
  },
  'template literal pieces': (v) => {
    const [a, b] = half(v);
    const inner = literal(b).slice(1, -1).replace(/'/g, "\\'");
    return { text: `\`${a.replace(/[`$\\]/g, '\\$&')}\${'${inner}'}\``, pieces: [a, inner] };
  },
};

/** Nested forms, innermost layer first, up to four layers. */
const NESTED: Array<{ layers: LayerName[]; wrapper?: string }> = [
  { layers: ['base64', 'base64'] },
  { layers: ['base64', 'URL, every byte'] },
  { layers: ['hex', 'base64'] },
  { layers: ['base64', 'hex'] },
  { layers: ['base64', 'HTML decimal entities'] },
  { layers: ['URL, every third character', 'HTML hex entities, some'] },
  { layers: ['\\x escapes', 'base64'] },
  { layers: ['base64', '\\u escapes'] },
  { layers: ['hex', 'URL, every byte', 'base64'] },
  { layers: ['base64', 'hex', 'HTML decimal entities'] },
  { layers: ['base64', 'base64url', 'URL, every third character', 'HTML hex entities, some'] },
  { layers: ['hex', 'base64', '\\x escapes', 'URL, every byte'] },
  { layers: ['base64'], wrapper: 'split at a line end' },
  { layers: ['hex'], wrapper: 'joined from string literals with +' },
  { layers: ['base64', 'hex'], wrapper: 'adjacent string literals' },
];

const layered =
  (names: LayerName[]) =>
  (v: string): string =>
    names.reduce((text, name) => LAYERS[name](text), v);

/** Every form: each layer alone, each split or join, and the nested ones. */
export function secretEncodings(): SecretEncoding[] {
  const forms: SecretEncoding[] = [];
  for (const name of Object.keys(LAYERS) as LayerName[])
    forms.push({ name, encode: (v) => whole(LAYERS[name](v)) });
  for (const [name, wrap] of Object.entries(WRAPPERS)) forms.push({ name, encode: wrap });
  for (const { layers, wrapper } of NESTED) {
    const inner = layered(layers);
    const name = [...layers, ...(wrapper ? [wrapper] : [])].join(' > ');
    forms.push({ name, encode: wrapper ? (v) => WRAPPERS[wrapper]!(inner(v)) : (v) => whole(inner(v)) });
  }
  return forms;
}
