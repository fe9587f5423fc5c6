import {
  compilePerimeter,
  DEFAULT_LIMITS,
  TOOL_NAMES,
  type Perimeter,
  type PerimeterSpec,
} from '../../../src/policy/index.js';

/**
 * A perimeter as parseConfig gives one: named `p`, every tool, nothing to read or write, any branch, the
 * default limits and no exceptions; `overrides` set the rest.
 */
export function perimeterSpec(overrides: Partial<PerimeterSpec> = {}): PerimeterSpec {
  return {
    name: 'p',
    tools: [...TOOL_NAMES],
    read: [],
    write: [],
    branches: null,
    allowProtected: [],
    limits: { ...DEFAULT_LIMITS },
    allowCredentialFiles: [],
    allowSecretsIn: [],
    ...overrides,
  };
}

/** `perimeterSpec(overrides)`, compiled. */
export function compiledPerimeter(overrides: Partial<PerimeterSpec> = {}): Perimeter {
  return compilePerimeter(perimeterSpec(overrides));
}
