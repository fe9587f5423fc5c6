import type { Decision, Perimeter } from './perimeter.js';

/**
 * The perimeter as staged writes judge it (`writes: stage`): a path it may not write on its own but may send
 * to review (`review` globs, see Perimeter.canReview) is writable, its decision marked `review` with the rule
 * that sent it. Everything else decides as the perimeter does. The gateway stages such writes with the rest;
 * the apply job, judging with the same view, sends the change set to a draft pull request instead of the
 * bound branch. A perimeter without `review` globs is returned as it is.
 */
export function withReview(perimeter: Perimeter): Perimeter {
  if ((perimeter.spec.review ?? []).length === 0) return perimeter;
  return {
    ...perimeter,
    canWrite(path: string): Decision {
      const write = perimeter.canWrite(path);
      if (write.allowed) return write;
      const review = perimeter.canReview(path);
      return review.allowed ? { allowed: true, rule: `sent to review: ${review.rule}`, review: true } : write;
    },
  };
}
