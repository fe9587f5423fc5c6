/**
 * An hourly budget as the x-ratelimit-* headers report it: REST's `core` (a request each) or `graphql`
 * (the points of each call), which GitHub keeps apart.
 */
export class RateBudget {
  private used = 0;
  private reset = Math.floor(Date.now() / 1000) + 3600;

  constructor(
    readonly limit: number,
    readonly resource: 'core' | 'graphql' = 'core',
  ) {}

  private roll(): void {
    const now = Math.floor(Date.now() / 1000);
    if (now >= this.reset) {
      this.used = 0;
      this.reset = now + 3600;
    }
  }

  get remaining(): number {
    this.roll();
    return Math.max(0, this.limit - this.used);
  }

  /** Counts one request (or a call's points); false when not enough is left (the request must be refused). */
  trySpend(points = 1): boolean {
    if (this.remaining < points) return false;
    this.used += points;
    return true;
  }

  /** Counts a request that is answered anyway (injected failures). */
  spend(): void {
    this.roll();
    this.used += 1;
  }

  snapshot(): { limit: number; used: number; remaining: number; reset: number } {
    const remaining = this.remaining;
    return { limit: this.limit, used: this.used, remaining, reset: this.reset };
  }

  headers(): Record<string, string> {
    const s = this.snapshot();
    return {
      'x-ratelimit-limit': String(s.limit),
      'x-ratelimit-remaining': String(s.remaining),
      'x-ratelimit-used': String(s.used),
      'x-ratelimit-reset': String(s.reset),
      'x-ratelimit-resource': this.resource,
    };
  }
}

/**
 * GitHub's secondary limit on content-creating requests (80 a minute for GITHUB_TOKEN), as a sliding
 * 60-second window. `admit` answers how many seconds to wait (Retry-After) when the window is full.
 */
export class WriteWindow {
  private readonly times: number[] = [];

  constructor(readonly perMinute: number) {}

  admit(now = Date.now()): { ok: true } | { ok: false; retryAfter: number } {
    while (this.times.length > 0 && this.times[0]! <= now - 60_000) this.times.shift();
    if (this.times.length >= this.perMinute) {
      return { ok: false, retryAfter: Math.max(1, Math.ceil((this.times[0]! + 60_000 - now) / 1000)) };
    }
    this.times.push(now);
    return { ok: true };
  }
}
