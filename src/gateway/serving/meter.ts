import type { RepoCoordinates } from '../../github/index.js';

export interface Metered {
  requests: number;
  not_modified: number;
  /** over git's smart HTTP, apart from `requests` (GitHub charges them to no budget) */
  git: number;
  /** false when another call ran at the same time: its requests may be counted here too */
  exact: boolean;
}

export interface MeterReading {
  stop(): Metered;
}

/**
 * Upstream requests per call, from the Upstream's counters. Calls that overlap share the counters, so
 * their figures are marked inexact rather than guessed apart.
 */
export class UpstreamMeter {
  private readonly running = new Set<{ overlapped: boolean }>();

  constructor(private readonly upstream: RepoCoordinates) {}

  start(): MeterReading {
    const before = this.upstream.stats();
    const me = { overlapped: this.running.size > 0 };
    for (const other of this.running) other.overlapped = true;
    this.running.add(me);
    let result: Metered | null = null;
    return {
      stop: () => {
        if (result) return result;
        this.running.delete(me);
        const after = this.upstream.stats();
        result = {
          requests: after.requests - before.requests,
          not_modified: after.notModified - before.notModified,
          git: (after.git ?? 0) - (before.git ?? 0),
          exact: !me.overlapped,
        };
        return result;
      },
    };
  }
}
