/**
 * Who holds the listener's connections. A connection is in its perimeter's pool while a request that
 * showed that perimeter's secret is in flight on it, and in the anonymous pool otherwise (before its first
 * request's headers are complete, after a wrong secret, idle between calls). The anonymous pool drops its
 * oldest member when full, so a process without any secret cannot keep connections from the agents (an
 * agent's connection joins it newest and leaves it as soon as its headers are in). Each perimeter's pool
 * has its own cap, and a claim past it is refused, so one perimeter's secret holder cannot take another's
 * share. Idle connections are never dropped for a perimeter's sake: a kept-alive connection closed by the
 * server just as its client reuses it fails that client's call. Pure bookkeeping: the caller closes what
 * it is told to drop.
 */

export interface PoolLimits {
  /** connections without a call of any perimeter in flight */
  anonymous: number;
  /** connections with a call of one perimeter in flight */
  perPerimeter: number;
}

/** null: the anonymous pool */
type PoolName = string | null;

export class ConnectionPools<C> {
  private readonly members = new Map<C, PoolName>();
  /** members of each pool, oldest first (a Set keeps insertion order) */
  private readonly pools = new Map<PoolName, Set<C>>();

  constructor(readonly limits: PoolLimits) {
    if (!(limits.anonymous >= 1 && limits.perPerimeter >= 1))
      throw new Error(`pool limits must be at least 1, got ${JSON.stringify(limits)}`);
  }

  /** A new connection joins the anonymous pool; returns the oldest anonymous ones past its cap, to drop. */
  open(connection: C): C[] {
    if (this.members.has(connection)) return [];
    return this.toAnonymous(connection);
  }

  /**
   * A request on `connection` showed `perimeter`'s secret: the connection moves into that perimeter's pool
   * for the request's life. False (nothing moved) when that pool is full, the connection is not held, or it
   * carries a call already: HTTP/1.1 pipelining would otherwise put more calls in flight than connections.
   */
  claim(connection: C, perimeter: string): boolean {
    if (this.members.get(connection) !== null) return false;
    if (this.size(perimeter) >= this.limits.perPerimeter) return false;
    this.leave(connection);
    this.join(connection, perimeter);
    return true;
  }

  /** The request's answer has gone: back to the anonymous pool as its newest; returns what to drop. */
  release(connection: C): C[] {
    if (!this.members.has(connection)) return [];
    this.leave(connection);
    return this.toAnonymous(connection);
  }

  close(connection: C): void {
    if (this.members.has(connection)) this.leave(connection);
  }

  /** The pool a connection is in: a perimeter's name, null for anonymous, undefined when not held. */
  poolOf(connection: C): PoolName | undefined {
    return this.members.get(connection);
  }

  size(pool: PoolName): number {
    return this.pools.get(pool)?.size ?? 0;
  }

  private toAnonymous(connection: C): C[] {
    this.join(connection, null);
    const anonymous = this.pools.get(null)!;
    const drop = [...anonymous].slice(0, Math.max(0, anonymous.size - this.limits.anonymous));
    for (const member of drop) this.leave(member);
    return drop;
  }

  private join(connection: C, name: PoolName): void {
    this.members.set(connection, name);
    let pool = this.pools.get(name);
    if (pool === undefined) this.pools.set(name, (pool = new Set()));
    pool.add(connection);
  }

  private leave(connection: C): void {
    const name = this.members.get(connection);
    this.members.delete(connection);
    const pool = this.pools.get(name ?? null);
    pool?.delete(connection);
    if (pool?.size === 0) this.pools.delete(name ?? null);
  }
}
