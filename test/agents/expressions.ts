/**
 * `${{ }}` expressions as the runner evaluates them, for the forms README's workflows use: literals, context
 * properties (`github.event.comment.body`), `!`, `&&`, `||`, `==`, `!=`, parentheses, and the functions
 * `startsWith`, `endsWith`, `contains`, `fromJSON`, `toJSON` and the status checks. Values are JSON values;
 * `&&` and `||` give an operand, as on the runner; comparisons of strings ignore case.
 * https://docs.github.com/actions/reference/workflows-and-actions/expressions
 *
 * A context property is resolved by `lookup`, which knows the runner's contexts (and which of them this
 * emulation lacks); an unknown function or form is an error here, never a silent empty string.
 */

export type Value = null | boolean | number | string | Value[] | { [key: string]: Value };

export interface Scope {
  /** a context property path (`['steps', 'perimeter', 'outputs', 'run-agent']`) */
  lookup(path: string[]): Value;
  /** the job's status so far, for success() and failure() */
  status: 'success' | 'failure';
}

type Token = { kind: 'str' | 'num' | 'id' | 'op'; text: string };

function tokens(expr: string): Token[] {
  const out: Token[] = [];
  const re =
    /\s*(?:'((?:[^']|'')*)'|(-?\d+(?:\.\d+)?)|([A-Za-z_][A-Za-z0-9_-]*)|(&&|\|\||==|!=|[!().,[\]*]))/y;
  let at = 0;
  while (at < expr.length) {
    if (/^\s*$/.test(expr.slice(at))) break;
    re.lastIndex = at;
    const m = re.exec(expr);
    if (!m) throw new Error(`\${{ ${expr} }}: cannot read it at "${expr.slice(at)}"`);
    at = re.lastIndex;
    if (m[1] !== undefined) out.push({ kind: 'str', text: m[1].replace(/''/g, "'") });
    else if (m[2] !== undefined) out.push({ kind: 'num', text: m[2] });
    else if (m[3] !== undefined) out.push({ kind: 'id', text: m[3] });
    else out.push({ kind: 'op', text: m[4]! });
  }
  return out;
}

export function truthy(value: Value): boolean {
  return !(value === null || value === false || value === 0 || value === '' || Number.isNaN(value));
}

/** A value as `${{ }}` puts it into text. */
export function asText(value: Value): string {
  if (value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value, null, 2);
  return String(value);
}

function equal(a: Value, b: Value): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  if (typeof a === 'object' || typeof b === 'object') return a === b;
  return Number(a ?? 0) === Number(b ?? 0);
}

const FUNCTIONS: Record<string, (args: Value[], scope: Scope) => Value> = {
  always: () => true,
  success: (_, s) => s.status === 'success',
  failure: (_, s) => s.status === 'failure',
  cancelled: () => false,
  startsWith: ([a, b]) =>
    asText(a ?? null)
      .toLowerCase()
      .startsWith(asText(b ?? null).toLowerCase()),
  endsWith: ([a, b]) =>
    asText(a ?? null)
      .toLowerCase()
      .endsWith(asText(b ?? null).toLowerCase()),
  contains: ([search, item]) =>
    Array.isArray(search)
      ? search.some((v) => equal(v, item ?? null))
      : asText(search ?? null)
          .toLowerCase()
          .includes(asText(item ?? null).toLowerCase()),
  fromJSON: ([text]) => JSON.parse(asText(text ?? null)) as Value,
  toJSON: ([value]) => JSON.stringify(value ?? null, null, 2),
};

/** The value of one expression (the text between `${{` and `}}`). */
export function evaluateValue(expr: string, scope: Scope): Value {
  const list = tokens(expr);
  let i = 0;
  const peek = (text?: string) => {
    const t = list[i];
    return t !== undefined && (text === undefined || (t.kind !== 'str' && t.text === text)) ? t : undefined;
  };
  const expect = (text: string) => {
    if (!peek(text)) throw new Error(`\${{ ${expr} }}: expected "${text}"`);
    i++;
  };
  const or = (): Value => {
    let left = and();
    while (peek('||')) {
      i++;
      const right = and();
      left = truthy(left) ? left : right;
    }
    return left;
  };
  const and = (): Value => {
    let left = comparison();
    while (peek('&&')) {
      i++;
      const right = comparison();
      left = truthy(left) ? right : left;
    }
    return left;
  };
  const comparison = (): Value => {
    const left = unary();
    if (peek('==') || peek('!=')) {
      const op = list[i++]!.text;
      const right = unary();
      return op === '==' ? equal(left, right) : !equal(left, right);
    }
    return left;
  };
  const unary = (): Value => {
    if (peek('!')) {
      i++;
      return !truthy(unary());
    }
    return postfix(primary());
  };
  const postfix = (value: Value): Value => {
    for (;;) {
      if (peek('.')) {
        i++;
        const key = list[i++];
        if (key?.kind !== 'id') throw new Error(`\${{ ${expr} }}: expected a property name`);
        value = property(value, key.text);
      } else if (peek('[')) {
        i++;
        const key = or();
        expect(']');
        value = property(value, asText(key));
      } else return value;
    }
  };
  const primary = (): Value => {
    const t = list[i++];
    if (!t) throw new Error(`\${{ ${expr} }}: ends too early`);
    if (t.kind === 'str') return t.text;
    if (t.kind === 'num') return Number(t.text);
    if (t.kind === 'op' && t.text === '(') {
      const value = or();
      expect(')');
      return value;
    }
    if (t.kind !== 'id') throw new Error(`\${{ ${expr} }}: unexpected "${t.text}"`);
    if (t.text === 'true' || t.text === 'false') return t.text === 'true';
    if (t.text === 'null') return null;
    if (peek('(')) {
      i++;
      const fn = FUNCTIONS[t.text];
      if (!fn) throw new Error(`\${{ ${expr} }}: the function ${t.text} is not emulated`);
      const args: Value[] = [];
      while (!peek(')')) {
        args.push(or());
        if (peek(',')) i++;
        else break;
      }
      expect(')');
      return fn(args, scope);
    }
    // a context path: the names joined by dots (postfix takes what follows a function or index)
    const path = [t.text];
    while (peek('.') && list[i + 1]?.kind === 'id') {
      path.push(list[i + 1]!.text);
      i += 2;
    }
    return scope.lookup(path);
  };
  const value = or();
  if (i !== list.length) throw new Error(`\${{ ${expr} }}: unexpected "${list[i]!.text}"`);
  return value;
}

/** A property of a value: null when it is absent, as on the runner. */
export function property(value: Value, key: string): Value {
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) return value[Number(key)] ?? null;
  return Object.prototype.hasOwnProperty.call(value, key) ? (value[key] ?? null) : null;
}
