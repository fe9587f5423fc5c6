import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigError, DEFAULT_LIMITS, parseConfig } from '../../src/policy/index.js';
import { SAMPLES } from './config-samples.js';

const schema = JSON.parse(
  readFileSync(new URL('../../perimeters.schema.json', import.meta.url), 'utf8'),
) as object;
const validate = new Ajv({ allErrors: true, strict: true }).compile(schema);

function validatorAccepts(yaml: string): boolean {
  try {
    parseConfig(yaml);
    return true;
  } catch (error) {
    if (error instanceof ConfigError) return false;
    throw error;
  }
}

function schemaAccepts(yaml: string): boolean {
  let data: unknown;
  try {
    data = parse(yaml, { uniqueKeys: false });
  } catch {
    return true; // not YAML: the schema never sees it
  }
  return validate(data ?? null);
}

describe('perimeters.schema.json', () => {
  describe.each(SAMPLES.filter((s) => s.schemaExempt === undefined))(
    'when the sample is "$name"',
    (sample) => {
      it(`is ${sample.valid ? 'accepted' : 'rejected'} by both the schema and parseConfig`, () => {
        expect(validatorAccepts(sample.yaml)).toBe(sample.valid);
        expect(schemaAccepts(sample.yaml)).toBe(sample.valid);
      });
    },
  );

  describe.each(SAMPLES.filter((s) => s.schemaExempt !== undefined))(
    'when the sample is "$name" (schema exempt)',
    (sample) => {
      it(`is rejected by parseConfig and passes the schema because ${sample.schemaExempt}`, () => {
        expect(validatorAccepts(sample.yaml)).toBe(sample.valid);
        expect(schemaAccepts(sample.yaml)).toBe(true);
      });
    },
  );

  it('lists exactly the tools parseConfig knows', async () => {
    const { TOOL_NAMES } = await import('../../src/policy/index.js');
    const perimeter = (
      schema as { definitions: { perimeter: { properties: { tools: { items: { enum: string[] } } } } } }
    ).definitions.perimeter;
    expect(perimeter.properties.tools.items.enum).toEqual([...TOOL_NAMES]);
  });

  it('states the default limits parseConfig fills in (DEFAULT_LIMITS)', () => {
    type Limit = { description: string };
    const limits = (
      schema as {
        definitions: { perimeter: { properties: { limits: { properties: Record<string, Limit> } } } };
      }
    ).definitions.perimeter.properties.limits.properties;
    const stated = (key: string) => Number(/^Default (\d+)\b/.exec(limits[key]!.description)?.[1]);
    expect({
      filesPerPush: stated('files-per-push'),
      bytesPerFile: stated('bytes-per-file'),
      bytesPerPush: stated('bytes-per-push'),
    }).toEqual(DEFAULT_LIMITS);
  });
});
