import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/**
 * The runner's side of a job as the artifact service sees it: the runtime token a runner hands each action
 * step (ACTIONS_RUNTIME_TOKEN), a JWT whose `scp` claim names the run and the job by their backend IDs, e.g.
 * `Actions.Results:<run backend id>:<job backend id>` (the form @actions/artifact reads in getBackendIdsFromToken).
 * GitHub signs it with its own key; the stand-in signs with HS256 and a key of its own, and refuses any
 * token it did not issue, a tampered one, and one of a job that has ended.
 */
export interface JobRun {
  /** 'owner/name' as the repository was registered */
  repository: string;
  runId: number;
  attempt: number;
  /** the job's name (GITHUB_JOB) */
  job: string;
  runBackendId: string;
  jobBackendId: string;
  ended: boolean;
}

/** Runtime tokens last about as long as a job may run (6 hours on hosted runners). */
const TOKEN_LIFETIME_S = 6 * 3600;

const b64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

export class ActionsRuntime {
  private readonly key = randomBytes(32);
  /** `owner/name#runId` (lower case) -> the run's backend ID */
  private readonly runs = new Map<string, string>();
  private readonly jobs = new Map<string, JobRun>();

  /** A job started: its runtime token, signed for its run and job. */
  startJob(
    repository: string,
    runId: number,
    attempt: number,
    job: string,
  ): { token: string; jobRun: JobRun } {
    const runKey = `${repository.toLowerCase()}#${runId}`;
    let runBackendId = this.runs.get(runKey);
    if (runBackendId === undefined) {
      runBackendId = randomUUID();
      this.runs.set(runKey, runBackendId);
    }
    const jobRun: JobRun = {
      repository,
      runId,
      attempt,
      job,
      runBackendId,
      jobBackendId: randomUUID(),
      ended: false,
    };
    this.jobs.set(jobRun.jobBackendId, jobRun);
    const now = Math.floor(Date.now() / 1000);
    const payload = {
      nameid: 'dddddddd-dddd-dddd-dddd-dddddddddddd',
      scp: [
        `Actions.GenericRead:${runBackendId}`,
        `Actions.Results:${runBackendId}:${jobRun.jobBackendId}`,
        `Actions.UploadArtifacts:${runBackendId}:${jobRun.jobBackendId}`,
      ].join(' '),
      iss: 'vstoken.actions.githubusercontent.com',
      aud: 'vso:actions',
      nbf: now - 60,
      iat: now,
      exp: now + TOKEN_LIFETIME_S,
    };
    const unsigned = `${b64url(JSON.stringify({ typ: 'JWT', alg: 'HS256' }))}.${b64url(JSON.stringify(payload))}`;
    return { token: `${unsigned}.${this.sign(unsigned)}`, jobRun };
  }

  /** The job ends: its token stops working, as a real runtime token does when the job is over. */
  endJob(jobBackendId: string): boolean {
    const job = this.jobs.get(jobBackendId);
    if (!job) return false;
    job.ended = true;
    return true;
  }

  /** The job a bearer token belongs to; a reason when it is missing, not ours, tampered, expired or ended. */
  authenticate(authorization: string | undefined): JobRun | { refused: string } {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
    if (!match) return { refused: 'no bearer token' };
    const parts = match[1]!.split('.');
    if (parts.length !== 3) return { refused: 'the token is not a JWT' };
    const [header, body, signature] = parts as [string, string, string];
    const expected = Buffer.from(this.sign(`${header}.${body}`));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given))
      return { refused: 'the token signature does not verify' };
    let claims: { scp?: unknown; exp?: unknown };
    try {
      claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      return { refused: 'the token claims are not JSON' };
    }
    if (typeof claims.exp !== 'number' || claims.exp * 1000 < Date.now())
      return { refused: 'the token expired' };
    const scope = String(claims.scp ?? '')
      .split(' ')
      .find((s) => s.startsWith('Actions.Results:'));
    const job = scope ? this.jobs.get(scope.split(':')[2] ?? '') : undefined;
    if (!job) return { refused: 'the token names no job' };
    if (job.ended) return { refused: 'the job of this token has ended' };
    return job;
  }

  /** The backend ID of a run of a repository, when a job of it ever started. */
  runBackendId(repository: string, runId: number): string | undefined {
    return this.runs.get(`${repository.toLowerCase()}#${runId}`);
  }

  /** Signs anything else the stand-in hands out (signed blob URLs). */
  sign(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url');
  }
}
