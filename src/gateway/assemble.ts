import { randomBytes } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import {
  createOctokitUpstream,
  StagedUpstream,
  type ConversationRequest,
  type Upstream,
} from '../github/index.js';
import { parseConfig, selectPerimeters, withReview, type Perimeter } from '../policy/index.js';
import type { AnswerFilter } from '../safety/answer-filter.js';
import { createSecretFilter } from '../safety/index.js';
import { startGateway, type RunningGateway } from './gateway.js';

/**
 * Everything a gateway is built from, the one shape for the action's gateway process (which reads it on
 * stdin), `perimeter serve`, the benchmarks and the load suite.
 */
export const gatewayConfigSchema = z.strictObject({
  token: z.string().min(1),
  apiUrl: z.string().url(),
  owner: z.string().min(1),
  repo: z.string().min(1),
  branch: z.string().min(1),
  /** the repository's default branch: a perimeter may be bound to it only when its branches name it */
  defaultBranch: z.string().min(1),
  configText: z.string(),
  /** the config's path in the repository: the protected set protects it */
  configFile: z.string().min(1),
  /** the trusted ref configText was read from: agent instruction files are served from it */
  configRef: z.string().min(1).optional(),
  /** the perimeters to expose, by the rule of src/policy/establish/exposure.ts; absent: every one the config defines */
  perimeters: z.array(z.string()).min(1).optional(),
  /** perimeter name -> bearer secret; a perimeter without one gets a random secret */
  secrets: z.record(z.string(), z.string()).default({}),
  port: z.number().int().min(0).max(65_535).default(0),
  writesPerMinute: z.number().int().min(1).optional(),
  ledgerPath: z.string().min(1),
  ledgerKey: z.string().min(1),
  /**
   * Present: writes are staged (`writes: stage`): pushes to the bound branch stay in the runner, reads see
   * them, and the change set is kept at this path (rewritten whole after each push) for the post step.
   */
  stagePath: z.string().min(1).optional(),
  /** the conversation tools' settings (src/gateway/conversation/conversation.ts); absent: those tools fail */
  conversation: z
    .strictObject({
      thread: z.number().int().positive().nullable(),
      receiptUrl: z.string().url().nullable(),
      statusContext: z.string().min(1),
      record: z.string().min(1).nullable(),
    })
    .optional(),
});
export type GatewayConfig = z.input<typeof gatewayConfigSchema>;

export interface AssemblyHooks {
  /** where diagnostic lines go; stderr by default */
  log?: (line: string) => void;
  /** what every answer passes through; by default the secret filter, told the token, ledger key and secrets */
  filter?: AnswerFilter;
  /** an upstream for config.owner/config.repo to use instead of an Octokit one built from token and apiUrl */
  upstream?: Upstream;
}

export interface AssembledGateway {
  gateway: RunningGateway;
  upstream: Upstream;
  /** the exposed perimeters, in config order */
  perimeters: Perimeter[];
  /** perimeter name -> bearer secret, for every exposed perimeter */
  secrets: Record<string, string>;
}

/** Thrown for a configuration that does not fit the schema; says which fields and why. */
export class GatewayConfigError extends Error {
  override name = 'GatewayConfigError';
}

/** The one way to build a gateway: validate the configuration, choose the perimeters, connect, serve. */
export async function assembleGateway(
  input: GatewayConfig,
  hooks: AssemblyHooks = {},
): Promise<AssembledGateway> {
  const config = checkConfig(gatewayConfigSchema, input, 'invalid gateway configuration');
  const selected = selectPerimeters(
    parseConfig(config.configText, config.configFile),
    config.perimeters ?? null,
    config.branch,
    config.defaultBranch,
  );
  // Staged writes may carry paths sent to review: the apply job, not this runner, decides where they go.
  const perimeters = config.stagePath === undefined ? selected : selected.map(withReview);
  const direct =
    hooks.upstream ??
    createOctokitUpstream({
      token: config.token,
      owner: config.owner,
      repo: config.repo,
      baseUrl: config.apiUrl,
      writesPerMinute: config.writesPerMinute,
      // the history copy beside the ledger: the gateway's own directory (under isolation, its user's)
      history: { branch: config.branch, dir: dirname(config.ledgerPath) },
    });
  const upstream = config.stagePath === undefined ? direct : staging(direct, config.branch, config.stagePath);
  if (upstream.owner !== config.owner || upstream.repo !== config.repo)
    throw new GatewayConfigError(
      `the upstream is for ${upstream.owner}/${upstream.repo}, the configuration for ${config.owner}/${config.repo}`,
    );
  const secrets = Object.fromEntries(
    perimeters.map((p) => [p.name, config.secrets[p.name] ?? randomBytes(32).toString('base64url')]),
  );
  const gateway = await startGateway({
    upstream,
    branch: config.branch,
    perimeters,
    secrets,
    port: config.port,
    ledger: { path: config.ledgerPath, key: config.ledgerKey },
    filter:
      hooks.filter ??
      createSecretFilter({ extraSecrets: [config.token, config.ledgerKey, ...Object.values(secrets)] }),
    ...(hooks.log ? { log: hooks.log } : {}),
    ...(config.configRef !== undefined ? { instructionsRef: config.configRef } : {}),
    ...(config.conversation !== undefined && {
      conversation: {
        upstream,
        ...(upstream instanceof StagedUpstream && {
          stage: (request: ConversationRequest) => upstream.stageRequest(request),
        }),
        settings: {
          ...config.conversation,
          repository: `${config.owner}/${config.repo}`,
          branch: config.branch,
        },
      },
    }),
  });
  return { gateway, upstream, perimeters, secrets };
}

/** The upstream for `writes: stage`, keeping each change set whole at `path` (written aside, then renamed). */
function staging(upstream: Upstream, branch: string, path: string): StagedUpstream {
  return new StagedUpstream(upstream, branch, {
    save: async (set) => {
      const aside = `${path}.${process.pid}.tmp`;
      await writeFile(aside, JSON.stringify(set), { mode: 0o600 });
      await rename(aside, path);
    },
  });
}

/** `value` as `schema` says, or a GatewayConfigError naming every field at fault. */
export function checkConfig<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const checked = schema.safeParse(value);
  if (checked.success) return checked.data;
  const fields = checked.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  throw new GatewayConfigError(`${what}: ${fields.join('; ')}`);
}
