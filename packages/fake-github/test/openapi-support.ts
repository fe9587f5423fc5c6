import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';

/**
 * Response validators built from GitHub's OpenAPI description (@octokit/openapi). OpenAPI 3.0's
 * `nullable` becomes JSON Schema's null type; the formats GitHub uses are checked by pattern. `oneOf`
 * is read as `anyOf`: GitHub's alternatives overlap (any validation-error is also a valid
 * repository-rule-violation-error), so an exact-one rule would refuse GitHub's own answers.
 */
type Node = Record<string, unknown>;

function translate(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(translate);
  if (typeof value !== 'object' || value === null) return value;
  const node: Node = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === 'example' || key === 'examples' || key.startsWith('x-')) continue;
    node[key === 'oneOf' ? 'anyOf' : key] = translate(child);
  }
  if (node.nullable === true) {
    delete node.nullable;
    if (typeof node.type === 'string' && !('enum' in node)) node.type = [node.type, 'null'];
    else return { anyOf: [node, { type: 'null' }] };
  }
  delete node.nullable;
  return node;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

let cached: { ajv: Ajv; spec: Node } | null = null;

function load(): { ajv: Ajv; spec: Node } {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const file = require.resolve('@octokit/openapi/generated/api.github.com.json');
  const spec = translate(JSON.parse(readFileSync(file, 'utf8'))) as Node;
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  ajv.addFormat('date-time', DATE_TIME);
  ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
  ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:\S*$/i);
  ajv.addFormat('uri-template', /^\S*$/);
  ajv.addFormat('email', /^\S*@?\S*$/);
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addSchema({ ...spec, $id: 'github' });
  cached = { ajv, spec };
  return cached;
}

const pointer = (parts: string[]): string =>
  parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The response statuses GitHub documents for an operation. */
export function documentedStatuses(path: string, method: string): string[] {
  const { spec } = load();
  const operation = ((spec.paths as Node)[path] as Node | undefined)?.[method.toLowerCase()] as
    Node | undefined;
  if (!operation) throw new Error(`no operation ${method} ${path} in GitHub's OpenAPI description`);
  return Object.keys(operation.responses as Node);
}

const validators = new Map<string, ValidateFunction>();

/** Validates a response body against the schema documented for (path, method, status). */
export function responseValidator(path: string, method: string, status: number): ValidateFunction {
  const key = `${method} ${path} ${status}`;
  const known = validators.get(key);
  if (known) return known;
  const { ajv, spec } = load();
  const operation = ((spec.paths as Node)[path] as Node)[method.toLowerCase()] as Node;
  const documented = (operation.responses as Node)[String(status)] as Node | undefined;
  if (!documented) throw new Error(`GitHub documents no ${status} for ${method} ${path}`);
  let base = `github#/paths/${pointer([path])}/${method.toLowerCase()}/responses/${status}`;
  let response = documented;
  if (typeof documented.$ref === 'string') {
    const name = documented.$ref.split('/').pop()!;
    base = `github#/components/responses/${pointer([name])}`;
    response = ((spec.components as Node).responses as Node)[name] as Node;
  }
  const json = (response.content as Node | undefined)?.['application/json'] as Node | undefined;
  const validate = ajv.compile({
    $ref: json?.schema
      ? `${base}/content/application~1json/schema`
      : 'github#/components/schemas/basic-error',
  });
  validators.set(key, validate);
  return validate;
}
