import type { IncomingMessage, ServerResponse } from 'node:http';
import { schema as githubSchema } from '@octokit/graphql-schema';
import {
  buildClientSchema,
  execute,
  GraphQLError,
  Kind,
  parse,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type IntrospectionQuery,
  type OperationDefinitionNode,
} from 'graphql';
import { createCommitOnBranch } from './graphql-commit.js';
import { callCost } from './graphql-cost.js';
import { repositoryValue } from './graphql-values.js';
import { HttpError, readJson } from '../http-util.js';
import {
  authenticated,
  errorBody,
  NOT_ACCESSIBLE,
  presentedToken,
  SECONDARY_LIMITED,
  send,
} from '../respond.js';
import type { ServerState } from '../stats.js';

export const GRAPHQL_KEY = 'POST /graphql';

let schema: GraphQLSchema | undefined;

/** GitHub's public schema (@octokit/graphql-schema, from GitHub's introspection): every call is validated against it. */
function githubGraphqlSchema(): GraphQLSchema {
  const json = githubSchema.json as { data?: IntrospectionQuery } & IntrospectionQuery;
  schema ??= buildClientSchema(json.data ?? json);
  return schema;
}

const errors = (...list: Array<Record<string, unknown>>) => ({ errors: list });

function pickOperation(document: DocumentNode, name: unknown): OperationDefinitionNode | string {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (typeof name === 'string') {
    return operations.find((o) => o.name?.value === name) ?? `No operation named "${name}"`;
  }
  if (operations.length !== 1) return 'An operation name is required';
  return operations[0]!;
}

/**
 * A write from a token without the permission (a job's GITHUB_TOKEN with `contents: read`): GitHub answers
 * HTTP 200, the field null and an error of type FORBIDDEN with GitHub's REST wording, as seen in
 * https://github.com/fpicalausa/remove-stale-branches/issues/49:
 * `{ type: 'FORBIDDEN', path: [...], extensions: { saml_failure: false }, message: 'Resource not accessible
 * by integration' }`.
 */
const notAccessible = (): never => {
  throw new GraphQLError(NOT_ACCESSIBLE, { extensions: { type: 'FORBIDDEN', saml_failure: false } });
};

/**
 * POST /graphql as GitHub answers it: the call checked against GitHub's schema and its documented limits,
 * charged its points to a budget of its own (x-ratelimit-resource: graphql), then run over the
 * repositories the stand-in serves. Errors come back as HTTP 200 with `errors`, as GitHub sends them.
 */
export async function handleGraphql(
  state: ServerState,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  state.stats.request(GRAPHQL_KEY, false);
  const budget = state.graphqlBudget;
  const login = authenticated(req, res, state.tokens);
  if (login === null) return;
  let body: Record<string, unknown>;
  try {
    body = await readJson(req);
  } catch (error) {
    const status = error instanceof HttpError ? error.status : 400;
    return send(res, status, errorBody(status, 'Problems parsing JSON'));
  }
  if (typeof body.query !== 'string')
    return send(res, 200, errors({ message: 'A query attribute must be specified and must be a string.' }));
  const variables = (body.variables ?? {}) as Record<string, unknown>;
  let document: DocumentNode;
  try {
    document = parse(body.query);
  } catch (error) {
    return send(res, 200, errors({ message: (error as GraphQLError).message }));
  }
  const s = githubGraphqlSchema();
  const invalid = validate(s, document);
  if (invalid.length > 0) return send(res, 200, { errors: invalid.map((e) => e.toJSON()) });
  const operation = pickOperation(document, body.operationName);
  if (typeof operation === 'string') return send(res, 200, errors({ message: operation }));
  const mutations =
    operation.operation === 'mutation'
      ? operation.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.name.value] : []))
      : [];
  for (const field of mutations) state.stats.mutation(field);
  // faults may name the call by its mutation ('GRAPHQL mutation createCommitOnBranch') or as 'POST /graphql'
  const key = mutations.length > 0 ? `GRAPHQL mutation ${mutations[0]}` : GRAPHQL_KEY;
  if (!(await state.faults.delay(key, GRAPHQL_KEY, res))) return;
  const injected = state.faults.take(['status', 'secondary-limit'], key, GRAPHQL_KEY);
  if (injected?.kind === 'status')
    return send(res, injected.status, errorBody(injected.status, injected.message ?? 'Server Error'));
  if (injected?.kind === 'secondary-limit') {
    const status = injected.status ?? 403;
    return send(res, status, errorBody(status, SECONDARY_LIMITED), {
      ...budget.headers(),
      'retry-after': String(injected.retryAfter ?? 1),
    });
  }
  // "Content creation limits include actions taken ... via the REST API and GraphQL API"
  // (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits)
  if (mutations.length > 0 && state.writes) {
    const admitted = state.writes.admit();
    if (!admitted.ok)
      return send(res, 403, errorBody(403, SECONDARY_LIMITED), {
        ...budget.headers(),
        'retry-after': String(admitted.retryAfter),
      });
  }

  const cost = callCost(s, document, operation, variables);
  if (cost.problem) return send(res, 200, errors(cost.problem), budget.headers());
  if (!budget.trySpend(cost.points)) {
    return send(
      res,
      200,
      errors({ type: 'RATE_LIMITED', message: `API rate limit exceeded for user ID ${login}.` }),
      { ...budget.headers(), 'x-ratelimit-remaining': '0' },
    );
  }
  state.stats.graphqlPoints(cost.points);

  const readOnly = state.contentsReadOnly.has(presentedToken(req, false) ?? '');
  const rootValue = {
    createCommitOnBranch: ({ input }: { input: Record<string, unknown> }) =>
      readOnly ? notAccessible() : createCommitOnBranch(state, login, input),
    repository: ({ owner, name }: { owner: string; name: string }) => {
      const repo = state.repos.get(`${owner}/${name}`.toLowerCase());
      if (!repo)
        throw new GraphQLError(`Could not resolve to a Repository with the name '${owner}/${name}'.`, {
          extensions: { type: 'NOT_FOUND' },
        });
      return repositoryValue(repo);
    },
  };
  const result = await execute({
    schema: s,
    document,
    rootValue,
    variableValues: variables,
    operationName: operation.name?.value,
  });
  const out: Record<string, unknown> = { data: result.data ?? null };
  if (result.errors?.length)
    out.errors = result.errors.map((e) => ({
      ...e.toJSON(),
      ...(e.extensions?.type ? { type: e.extensions.type } : {}),
    }));
  // the call was carried out; a test may have its answer lost on the way back
  if (state.faults.take(['lose-answer'], key, GRAPHQL_KEY))
    return send(res, 502, errorBody(502, 'Server Error'));
  send(res, 200, out, budget.headers());
}
