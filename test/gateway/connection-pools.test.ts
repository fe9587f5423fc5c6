import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConnectionPools } from '../../src/gateway/serving/connection-pools.js';

const LIMITS = { anonymous: 4, perPerimeter: 3 };
const PERIMETERS = ['a', 'b', 'c'];

type Op =
  | { op: 'open' }
  | { op: 'claim'; pick: number; perimeter: string }
  | { op: 'release'; pick: number }
  | { op: 'close'; pick: number };

const ops = fc.array(
  fc.oneof(
    fc.constant<Op>({ op: 'open' }),
    fc.record({
      op: fc.constant('claim' as const),
      pick: fc.nat(),
      perimeter: fc.constantFrom(...PERIMETERS),
    }),
    fc.record({ op: fc.constant('release' as const), pick: fc.nat() }),
    fc.record({ op: fc.constant('close' as const), pick: fc.nat() }),
  ),
  { maxLength: 200 },
);

/** The reference: each pool an array, oldest first. */
class Model {
  readonly pools = new Map<string | null, number[]>([[null, []]]);

  poolOf(c: number): string | null | undefined {
    for (const [name, members] of this.pools) if (members.includes(c)) return name;
    return undefined;
  }

  members(name: string | null): number[] {
    if (!this.pools.has(name)) this.pools.set(name, []);
    return this.pools.get(name)!;
  }

  remove(c: number): void {
    for (const members of this.pools.values()) if (members.includes(c)) members.splice(members.indexOf(c), 1);
  }

  toAnonymous(c: number): number[] {
    const anonymous = this.members(null);
    anonymous.push(c);
    return anonymous.splice(0, Math.max(0, anonymous.length - LIMITS.anonymous));
  }
}

describe('ConnectionPools', () => {
  it('keeps every pool within its cap, drops only the oldest anonymous, refuses a full perimeter or a busy connection', () => {
    fc.assert(
      fc.property(ops, (sequence) => {
        const pools = new ConnectionPools<number>(LIMITS);
        const model = new Model();
        const opened: number[] = [];
        const held = (): number[] => opened.filter((c) => pools.poolOf(c) !== undefined);
        for (const step of sequence) {
          if (step.op === 'open') {
            const c = opened.length;
            opened.push(c);
            expect(pools.open(c)).toEqual(model.toAnonymous(c));
            continue;
          }
          const candidates = held();
          if (candidates.length === 0) continue;
          const c = candidates[step.pick % candidates.length]!;
          if (step.op === 'claim') {
            // one call at a time: only a connection without one (anonymous) may claim
            const room =
              model.poolOf(c) === null && model.members(step.perimeter).length < LIMITS.perPerimeter;
            expect(pools.claim(c, step.perimeter)).toBe(room);
            if (room) {
              model.remove(c);
              model.members(step.perimeter).push(c);
            }
          } else if (step.op === 'release') {
            model.remove(c);
            expect(pools.release(c)).toEqual(model.toAnonymous(c));
          } else {
            model.remove(c);
            pools.close(c);
          }
          for (const c of opened) expect(pools.poolOf(c)).toBe(model.poolOf(c));
          expect(pools.size(null)).toBeLessThanOrEqual(LIMITS.anonymous);
          for (const p of PERIMETERS) expect(pools.size(p)).toBeLessThanOrEqual(LIMITS.perPerimeter);
        }
      }),
    );
  });

  describe('when one perimeter is full', () => {
    it('still admits another perimeter, and drops nothing of either for anonymous newcomers', () => {
      const pools = new ConnectionPools<string>(LIMITS);
      const full = ['a1', 'a2', 'a3'];
      for (const c of full) {
        pools.open(c);
        expect(pools.claim(c, 'a')).toBe(true);
      }
      pools.open('a4');
      expect(pools.claim('a4', 'a')).toBe(false);
      expect(pools.poolOf('a4')).toBeNull();
      pools.open('b1');
      expect(pools.claim('b1', 'b')).toBe(true);
      const dropped = ['x1', 'x2', 'x3', 'x4', 'x5'].flatMap((c) => pools.open(c));
      expect(dropped).toEqual(['a4', 'x1']);
      expect([...full, 'b1'].map((c) => pools.poolOf(c))).toEqual(['a', 'a', 'a', 'b']);
    });
  });

  describe('when given a limit below 1', () => {
    it('throws, quoting the limits', () => {
      expect(() => new ConnectionPools({ anonymous: 0, perPerimeter: 2 })).toThrow(
        /at least 1, got \{"anonymous":0,"perPerimeter":2\}/,
      );
    });
  });
});
