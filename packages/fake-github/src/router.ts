import type { IncomingMessage } from 'node:http';
import type { AppIdentity } from './apps.js';
import type { ApiResponse } from './http-util.js';
import type { FakeRepo } from './repo.js';

export interface RouteContext {
  req: IncomingMessage;
  url: URL;
  params: Record<string, string>;
  repo: FakeRepo;
  /** The stand-in's own URL, for the `url` fields of answers. */
  base: string;
  /** Login of the token's owner. */
  actor: string;
  /** The App the token acts as (an installation token, GITHUB_TOKEN included); null for a person's token. */
  app: AppIdentity | null;
  /** Whether the token may administer the repository (rulesets): the main token only. */
  admin: boolean;
  /** Whether the token has the `workflows` permission (GITHUB_TOKEN has not). */
  canWriteWorkflows: boolean;
  /** Milliseconds of the newest ref changes the activity list leaves out (an activity-lag fault); 0 by default. */
  activityLagMs: number;
  /** The token's `issues` and `pull-requests` permissions, for routes that need either (issue comments, labels). */
  permissions: { issues: 'none' | 'read' | 'write'; pullRequests: 'none' | 'read' | 'write' };
  /** Called by handlers before they move a ref, so injected concurrent ref moves happen first. */
  beforeRefWrite(ref: string): Promise<void>;
}

export type Handler = (ctx: RouteContext) => Promise<ApiResponse>;

export interface Route {
  method: string;
  /** Stats key, e.g. 'GET /repos/{owner}/{repo}/git/trees/{sha}'. */
  key: string;
  regex: RegExp;
  names: string[];
  handler: Handler;
}

/**
 * Patterns use `{name}` for one path segment, `{name+}` for one or more segments (refs with slashes)
 * and `{name*}` for zero or more.
 */
export function route(method: string, pattern: string, handler: Handler): Route {
  const names: string[] = [];
  const source = pattern.replace(/\{(\w+)([+*]?)\}/g, (_, name: string, greedy: string) => {
    names.push(name);
    return greedy === '+' ? '(.+)' : greedy === '*' ? '(.*)' : '([^/]+)';
  });
  return {
    method,
    key: `${method} ${pattern.replace(/[+*]\}/g, '}')}`,
    regex: new RegExp(`^${source}$`),
    names,
    handler,
  };
}

export function matchRoute(
  routes: Route[],
  method: string,
  path: string,
): { route: Route; params: Record<string, string> } | null {
  for (const candidate of routes) {
    if (candidate.method !== method) continue;
    const match = candidate.regex.exec(path);
    if (!match) continue;
    const params: Record<string, string> = {};
    candidate.names.forEach((name, i) => {
      params[name] = safeDecode(match[i + 1] ?? '');
    });
    return { route: candidate, params };
  }
  return null;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
