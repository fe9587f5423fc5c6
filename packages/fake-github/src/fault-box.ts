import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { activate, fullRefName, routeMatches } from './faults.js';
import type { ActiveFault, Fault } from './faults.js';
import type { FakeRepo } from './repo.js';
import { commitToBare } from './seed.js';

type Kind = Fault['kind'];

/** The faults waiting to fire; each fires on the requests it matches until its count is used up. */
export class FaultBox {
  private faults: ActiveFault[] = [];
  private readonly hangListeners: Array<(request: string) => void> = [];

  add(fault: Fault): void {
    this.faults.push(activate(fault));
  }

  clear(): void {
    this.faults = [];
  }

  /** Calls `listener` with 'METHOD /path' whenever a request starts hanging. */
  onHang(listener: (request: string) => void): void {
    this.hangListeners.push(listener);
  }

  /**
   * Applies a latency or hang fault to this request before it is carried out: waits out the latency, or
   * until a hanging request's client gives up. False when the request is to be dropped unanswered.
   */
  async delay(key: string, concrete: string, res: ServerResponse): Promise<boolean> {
    const fault = this.take(['latency', 'hang'], key, concrete);
    if (fault?.kind === 'latency') await sleep(fault.ms);
    if (fault?.kind !== 'hang') return true;
    const gone =
      res.socket?.destroyed === false ? new Promise((resolve) => res.once('close', resolve)) : undefined;
    for (const listener of this.hangListeners) listener(concrete);
    await gone;
    return false;
  }

  /** For GET /_fake/faults: RegExp routes shown as their source. */
  list(): Array<Record<string, unknown>> {
    return this.faults.map((f) => {
      const shown: Record<string, unknown> = { ...f };
      if ('route' in f && f.route instanceof RegExp) shown.route = f.route.source;
      if (f.remaining === Infinity) shown.remaining = null;
      return shown;
    });
  }

  /** The first fault of one of `kinds` for this request (route-scoped ones first), counted down. */
  take(kinds: Kind[], key: string, concrete: string): ActiveFault | null {
    const usable = this.faults.filter((f) => kinds.includes(f.kind) && f.remaining > 0);
    const scoped = usable.find(
      (f) => 'route' in f && f.route !== undefined && routeMatches(f.route, key, concrete),
    );
    const fault = scoped ?? usable.find((f) => !('route' in f) || f.route === undefined);
    if (!fault) return null;
    fault.remaining -= 1;
    this.faults = this.faults.filter((f) => f.remaining > 0);
    return fault;
  }

  /**
   * Fires the move-ref faults for `repo` that concern `ref` (every one for the repo when `ref` is null,
   * as before a git push), moving the ref as a concurrent writer would.
   */
  async moveRefsBefore(repo: FakeRepo, ref: string | null): Promise<void> {
    const due = this.faults.filter(
      (f): f is Extract<ActiveFault, { kind: 'move-ref' }> =>
        f.kind === 'move-ref' &&
        f.repo.toLowerCase() === repo.fullName.toLowerCase() &&
        (ref === null || fullRefName(f.ref) === ref),
    );
    this.faults = this.faults.filter((f) => !due.includes(f as never));
    for (const fault of due) {
      const target = fullRefName(fault.ref);
      const actor = fault.actor ?? 'octocat';
      if (fault.toSha) {
        await repo.moveRef(target, await repo.refValue(target), fault.toSha, actor);
      } else {
        const branch = target.replace(/^refs\/heads\//, '');
        await commitToBare(repo.dir, branch, fault.files ?? {}, fault.message ?? 'Concurrent change', {
          actor,
        });
      }
    }
  }
}
