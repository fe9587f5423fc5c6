import {
  compilePerimeter,
  defaultPerimeterSpec,
  type Perimeter,
  type PerimeterSpec,
} from '../../../src/policy/index.js';

/** A perimeter as parseConfig gives one when perimeters.yml names only `p`; `overrides` set the rest. */
export function perimeterSpec(overrides: Partial<PerimeterSpec> = {}): PerimeterSpec {
  return { ...defaultPerimeterSpec('p'), ...overrides };
}

/** `perimeterSpec(overrides)`, compiled. */
export function compiledPerimeter(overrides: Partial<PerimeterSpec> = {}): Perimeter {
  return compilePerimeter(perimeterSpec(overrides));
}
