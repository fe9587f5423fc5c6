import type { Perimeter } from '../../policy/index.js';
import type { AnswerFilter } from '../../safety/answer-filter.js';
import { GraphqlLanding } from './graphql-landing.js';
import { GitDataLanding, type Landing, type PushResult } from './push-landing.js';
import { checkRequest, credentialProblems, digest, refusal, type PushRequest } from './push-plan.js';
import type { RepoView } from '../reads/repo-view.js';
import type { CallNotes } from '../tool-answer.js';

export type { PushRequest } from './push-plan.js';
export type { PushResult } from './push-landing.js';

/**
 * push_files: everything is checked (push-plan.ts) before anything is written, then the landing makes one
 * commit on the bound branch: by GraphQL where it can express the push, else by the Git Data API. Pushes from this process run one at a time.
 */
export class Pusher {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly landing: Landing;

  constructor(
    view: RepoView,
    private readonly filter: AnswerFilter,
    landing?: Landing,
  ) {
    this.landing = landing ?? new GraphqlLanding(view, new GitDataLanding(view));
  }

  push(perimeter: Perimeter, request: PushRequest, notes: CallNotes): Promise<PushResult> {
    const run = this.queue.then(() => this.pushNow(perimeter, request, notes));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async pushNow(perimeter: Perimeter, request: PushRequest, notes: CallNotes): Promise<PushResult> {
    const { files, deletions, problems } = checkRequest(perimeter, request);
    notes.paths.push(...request.files.map((f) => f.path), ...deletions);
    notes.message = digest(new TextEncoder().encode(request.message));
    notes.content = files.map((f) => ({ path: f.path, ...digest(f.bytes) }));
    if (problems.length > 0) throw refusal(problems, notes);
    const scan = await credentialProblems(perimeter, request.message, files, this.filter);
    if (scan.problems.length > 0) {
      notes.refusedFor = ['credential'];
      throw refusal(scan.problems, notes);
    }
    const result = await this.landing.land(
      perimeter,
      { message: request.message, files, deletions, unscanned: scan.unscanned },
      notes,
    );
    const review = [...files.map((f) => f.path), ...deletions].filter(
      (path) => perimeter.canWrite(path).review,
    );
    return review.length > 0 && result.commit !== null ? { ...result, review } : result;
  }
}
