import { compileGlobList } from './glob.js';
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

/**
 * Paths GitHub or a CI service runs from the branch that holds them, with what that branch's workflows ask for:
 * a push by a token other than GITHUB_TOKEN (an App's, a person's) starts the workflows of the pushed branch,
 * with the repository's secrets and whatever `permissions:` they name
 * (https://docs.github.com/actions/using-workflows/triggering-a-workflow#triggering-a-workflow-from-a-workflow).
 * Review never takes these to a branch of the repository: a person makes such a change.
 */
const RUNS_FROM_BRANCH: ReadonlyArray<{ glob: string; why: string }> = [
  { glob: '.github/workflows/**', why: 'a GitHub Actions workflow runs from the branch it is pushed to' },
  { glob: '.github/actions/**', why: 'a local action runs in the workflows of the branch it is pushed to' },
  { glob: '**/action.{yml,yaml}', why: 'a local action runs in the workflows of the branch it is pushed to' },
  { glob: '.gitlab-ci.yml', why: 'GitLab CI runs it from the branch it is pushed to' },
  { glob: '.circleci/**', why: 'CircleCI runs it from the branch it is pushed to' },
  { glob: '.travis.yml', why: 'Travis CI runs it from the branch it is pushed to' },
  {
    glob: '{.azure-pipelines/**,azure-pipelines.yml}',
    why: 'Azure Pipelines runs it from the branch it is pushed to',
  },
  { glob: '.buildkite/**', why: 'Buildkite runs it from the branch it is pushed to' },
  { glob: '{jenkinsfile,**/jenkinsfile}', why: 'Jenkins runs it from the branch it is pushed to' },
  { glob: 'bitbucket-pipelines.yml', why: 'Bitbucket Pipelines runs it from the branch it is pushed to' },
  {
    glob: '{.drone.yml,.woodpecker.yml,.woodpecker/**}',
    why: 'Drone and Woodpecker run it from the branch it is pushed to',
  },
];

const runsFromBranch = RUNS_FROM_BRANCH.map((rule) => ({ ...rule, match: compileGlobList([rule.glob]) }));

/** Why `path` runs from the branch that holds it (a workflow, a CI configuration), or null. */
export function runsOnPushRule(path: string): string | null {
  const folded = path.normalize('NFC').toLowerCase();
  const rule = runsFromBranch.find(({ match }) => match.find(folded) !== null);
  return rule === undefined ? null : `${rule.why} (${rule.glob})`;
}
