/** Faults the stand-in can be told to inject (in process or through POST /_fake/faults). */

/** A stats key ('PATCH /repos/{owner}/{repo}/git/refs/{ref}'), a concrete 'METHOD /path', or a RegExp tested on both. */
export type FaultRoute = string | RegExp;

export type Fault =
  /** Delay matching requests by `ms` (every request until cleared, or the next `count`). */
  | { kind: 'latency'; ms: number; count?: number; route?: FaultRoute }
  /**
   * Leave the next `count` (default 1) matching requests unanswered until the client gives up (a delay longer
   * than any timeout), then drop them: they never take effect.
   */
  | { kind: 'hang'; count?: number; route?: FaultRoute }
  /** Answer the next `count` (default 1) matching requests with `status` and GitHub's error body. */
  | { kind: 'status'; status: number; count?: number; route?: FaultRoute; message?: string }
  /** Primary rate limit spent: 403, x-ratelimit-remaining 0, x-ratelimit-reset `retryAfter` seconds ahead (default 1). */
  | { kind: 'rate-limit'; count?: number; route?: FaultRoute; retryAfter?: number }
  /** Secondary rate limit: 403 (or 429) with Retry-After `retryAfter` seconds (default 1). */
  | { kind: 'secondary-limit'; count?: number; route?: FaultRoute; status?: 403 | 429; retryAfter?: number }
  /** Carry out the next `count` (default 1) matching requests, then answer 502 as if the answer was lost. */
  | { kind: 'lose-answer'; count?: number; route?: FaultRoute }
  /**
   * GitHub records a push a moment after it lands: the next `count` (default: until cleared) activity
   * lists leave out the ref changes of the last `ms` milliseconds.
   */
  | { kind: 'activity-lag'; ms: number; count?: number }
  /**
   * Before the next write to `ref` in `repo` ('owner/name'), by the API or by git push, move the ref:
   * to `toSha`, or else with a new commit on top of it (same tree, or with `files` changed; null deletes).
   */
  | {
      kind: 'move-ref';
      repo: string;
      ref: string;
      toSha?: string;
      files?: Record<string, string | null>;
      actor?: string;
      message?: string;
    };

export type ActiveFault = Fault & { remaining: number };

const KINDS = [
  'latency',
  'hang',
  'status',
  'lose-answer',
  'rate-limit',
  'secondary-limit',
  'activity-lag',
  'move-ref',
];

/** Turns JSON from the control surface into a Fault; `routePattern` becomes a RegExp. Throws a plain message. */
export function parseFault(value: unknown): Fault {
  if (typeof value !== 'object' || value === null)
    throw new Error('expected a JSON object describing a fault');
  const raw = { ...(value as Record<string, unknown>) };
  if (typeof raw.kind !== 'string' || !KINDS.includes(raw.kind)) {
    throw new Error(`expected kind to be one of ${KINDS.join(', ')}, got ${JSON.stringify(raw.kind)}`);
  }
  if (typeof raw.routePattern === 'string') {
    raw.route = new RegExp(raw.routePattern);
    delete raw.routePattern;
  }
  const numberField = (name: string, required: boolean): void => {
    const v = raw[name];
    if (v === undefined && !required) return;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      throw new Error(`expected ${name} to be a non-negative number, got ${JSON.stringify(v)}`);
  };
  numberField('count', false);
  if (raw.kind === 'latency' || raw.kind === 'activity-lag') numberField('ms', true);
  if (raw.kind === 'status') numberField('status', true);
  if (raw.kind === 'rate-limit' || raw.kind === 'secondary-limit') numberField('retryAfter', false);
  if (raw.kind === 'move-ref' && (typeof raw.repo !== 'string' || typeof raw.ref !== 'string')) {
    throw new Error('expected move-ref to name repo ("owner/name") and ref');
  }
  return raw as unknown as Fault;
}

export function activate(fault: Fault): ActiveFault {
  const fallback = fault.kind === 'latency' || fault.kind === 'activity-lag' ? Infinity : 1;
  const count = 'count' in fault && fault.count !== undefined ? fault.count : fallback;
  return { ...fault, remaining: count };
}

export function routeMatches(route: FaultRoute | undefined, key: string, concrete: string): boolean {
  if (route === undefined) return true;
  if (typeof route === 'string') return route === key || route === concrete;
  return route.test(key) || route.test(concrete);
}

/** 'main', 'heads/main' and 'refs/heads/main' all name refs/heads/main. */
export function fullRefName(ref: string): string {
  if (ref.startsWith('refs/')) return ref;
  if (ref.startsWith('heads/') || ref.startsWith('tags/')) return `refs/${ref}`;
  return `refs/heads/${ref}`;
}
