import type { RunArtifact, WorkflowJob, WorkflowStep } from '../../github/index.js';

/** The artifact GitHub vouches for: its id to download, and the digest the download must have. */
export interface RecordEvidence {
  id: number;
  digest: string;
  /** the job whose post step uploaded it */
  job: string;
}

/** Why an artifact is not the record: said in the `error` receipt as it is. */
export class RecordEvidenceError extends Error {
  override name = 'RecordEvidenceError';
}

const POST = /^Post /;
const at = (time: string | null): number => (time === null ? Number.NaN : Date.parse(time));

/**
 * The post steps of a job: every step from the first `Post …` step on (a runner runs the actions' post steps
 * after every other step, then `Complete job`), and when the steps before them ended. Null when the job has
 * no post step, or GitHub records no time for it.
 */
function postWindow(job: WorkflowJob): { opens: number; closes: number; failed: WorkflowStep[] } | null {
  const first = job.steps.findIndex((step) => POST.test(step.name));
  if (first < 0) return null;
  const posts = job.steps.slice(first).filter((step) => POST.test(step.name));
  // a step GitHub gives no end (skipped, say) ran nothing to wait for
  const ends = job.steps.slice(0, first).map((step) => at(step.completedAt));
  const opens = Math.max(...ends.filter((end) => !Number.isNaN(end)), at(job.startedAt));
  const closes = Math.max(...posts.map((step) => at(step.completedAt)));
  if (Number.isNaN(opens) || Number.isNaN(closes)) return null;
  return { opens, closes, failed: posts.filter((step) => step.conclusion !== 'success') };
}

/**
 * Whether the record artifact named `name` is one the agent job's post step uploaded, on GitHub's word only:
 * the one artifact of that name in the run, created after the steps before the job's post steps ended
 * (the agent's steps) and no later than its last post step ended, every post step a success (post fails when
 * the name was taken), and a digest to download it by. GitHub's times have whole seconds, so an upload in the
 * second the agent's last step ended is not told apart from post's; post's own failure on a taken name covers
 * that second. Throws RecordEvidenceError with the reason otherwise.
 * https://docs.github.com/rest/actions/artifacts#list-workflow-run-artifacts
 * https://docs.github.com/rest/actions/workflow-jobs#list-jobs-for-a-workflow-run
 */
export function judgeRecordArtifact(
  name: string,
  artifacts: readonly RunArtifact[],
  agentJobs: readonly WorkflowJob[],
): RecordEvidence {
  const named = artifacts.filter((artifact) => artifact.name === name);
  if (named.length === 0)
    throw new RecordEvidenceError(
      `GitHub lists no artifact "${name}" in this run: the agent job uploaded no record`,
    );
  if (named.length > 1)
    throw new RecordEvidenceError(
      `GitHub lists ${named.length} artifacts "${name}" in this run (ids ${named.map((a) => a.id).join(', ')}): which is the record cannot be told`,
    );
  const artifact = named[0]!;
  if (artifact.expired)
    throw new RecordEvidenceError(`the artifact "${name}" (id ${artifact.id}) has expired`);
  if (artifact.digest === null)
    throw new RecordEvidenceError(
      `GitHub records no digest for the artifact "${name}" (id ${artifact.id}): its content cannot be tied to the upload`,
    );
  const created = at(artifact.createdAt);
  const reasons: string[] = [];
  for (const job of agentJobs) {
    const post = postWindow(job);
    if (post === null) {
      reasons.push(`GitHub records no finished post step for job "${job.name}"`);
      continue;
    }
    if (created < post.opens) {
      reasons.push(
        `it was created at ${artifact.createdAt}, before the steps of job "${job.name}" ahead of its post steps ended (${iso(post.opens)}): an agent step uploaded it`,
      );
      continue;
    }
    if (created > post.closes) {
      reasons.push(
        `it was created at ${artifact.createdAt}, after the post steps of job "${job.name}" ended (${iso(post.closes)}): it replaced the record post uploaded`,
      );
      continue;
    }
    if (post.failed.length > 0) {
      reasons.push(
        `the post step "${post.failed[0]!.name}" of job "${job.name}" ended ${post.failed[0]!.conclusion ?? 'without a conclusion'} (it fails when the record's name was taken)`,
      );
      continue;
    }
    return { id: artifact.id, digest: artifact.digest, job: job.name };
  }
  throw new RecordEvidenceError(
    `the artifact "${name}" (id ${artifact.id}) is not the agent job's record: ${reasons.join('; ') || 'no agent job'}`,
  );
}

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
