import type { Perimeter } from '../../policy/index.js';
import { ALL_TOOLS } from './all-tools.js';
import type { ToolDefinition } from './definition.js';

/**
 * The tools one perimeter exposes: its allowlist applied to the table, in table order. Fails closed: a
 * granted name the table does not know is an error at start, never silently dropped.
 */
export function selectTools(
  perimeter: Perimeter,
  table: readonly ToolDefinition[] = ALL_TOOLS,
): ToolDefinition[] {
  const known = new Set(table.map((t) => t.name));
  const unknown = [...perimeter.tools].filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(`perimeter "${perimeter.name}" grants unknown tools: ${unknown.join(', ')}`);
  }
  return table.filter((tool) => perimeter.tools.has(tool.name));
}
