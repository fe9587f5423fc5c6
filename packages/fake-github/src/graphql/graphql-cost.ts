import {
  getNamedType,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
  isCompositeType,
} from 'graphql';

/**
 * GitHub's documented limits and costs of one GraphQL call
 * (https://docs.github.com/en/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api):
 * - every connection needs `first` or `last`, from 1 to 100;
 * - a call may ask for at most 500,000 nodes: each connection's `first`/`last` times those of the
 *   connections it sits in, added up;
 * - the call's cost in points: the requests needed to fill each connection (one per instance of the
 *   connection it sits in, each assumed full), added up, divided by 100 and rounded; at least 1.
 * Lists that are not connections (a tree's `entries`) add neither nodes nor points.
 */
export const NODE_LIMIT = 500_000;

export interface CallCost {
  nodes: number;
  points: number;
  /** why the call is refused before it runs, as GitHub words it */
  problem?: { type: string; message: string };
}

const isConnection = (type: GraphQLCompositeType): boolean => type.name.endsWith('Connection');

export function callCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): CallCost {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions)
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  let nodes = 0;
  let requests = 0;
  let problem: CallCost['problem'];

  const argValue = (value: ValueNode | undefined): number | undefined => {
    if (!value) return undefined;
    if (value.kind === Kind.INT) return Number(value.value);
    if (value.kind === Kind.VARIABLE) {
      const v = variables[value.name.value];
      return typeof v === 'number' ? v : undefined;
    }
    return undefined;
  };

  const walk = (set: SelectionSetNode, parent: GraphQLCompositeType, multiplier: number, seen: string[]) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || seen.includes(fragment.name.value)) continue;
        const on = schema.getType(fragment.typeCondition.name.value);
        if (on && isCompositeType(on))
          walk(fragment.selectionSet, on, multiplier, [...seen, fragment.name.value]);
        continue;
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        if (on && isCompositeType(on)) walk(selection.selectionSet, on, multiplier, seen);
        continue;
      }
      if (!selection.selectionSet || !('getFields' in parent)) continue;
      const field = parent.getFields()[selection.name.value];
      if (!field) continue;
      const type = getNamedType(field.type);
      if (!isCompositeType(type)) continue;
      let inner = multiplier;
      if (isConnection(type)) {
        const arg = (name: string) =>
          argValue(selection.arguments?.find((a) => a.name.value === name)?.value);
        const size = arg('first') ?? arg('last');
        if (size === undefined)
          problem ??= {
            type: 'MISSING_PAGINATION_BOUNDARIES',
            message: `You must provide a \`first\` or \`last\` value to properly paginate the \`${selection.name.value}\` connection.`,
          };
        else if (size < 1 || size > 100)
          problem ??= {
            type: 'EXCESSIVE_PAGINATION',
            message: `Requesting ${size} records on the \`${selection.name.value}\` connection exceeds the \`first\` limit of 100 records.`,
          };
        requests += multiplier;
        inner = multiplier * Math.min(Math.max(size ?? 100, 1), 100);
        nodes += inner;
      }
      walk(selection.selectionSet, type, inner, seen);
    }
  };

  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  if (root) walk(operation.selectionSet, root, 1, []);
  if (!problem && nodes > NODE_LIMIT)
    problem = {
      type: 'MAX_NODE_LIMIT_EXCEEDED',
      message: `By the time this query traverses to the connections, it is requesting up to ${nodes} possible nodes which exceeds the maximum limit of ${NODE_LIMIT}.`,
    };
  return { nodes, points: Math.max(1, Math.round(requests / 100)), ...(problem ? { problem } : {}) };
}
