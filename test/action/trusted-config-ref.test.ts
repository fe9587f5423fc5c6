/**
 * A config ref the agent cannot move (issue #42), as runners run the two jobs: with `config-ref` a tag, the
 * agent job's token could move the tag (GitHub's activity list records no tag moves) to a commit with a
 * permissive perimeters.yml, and a verify job reading the moved tag would post success on an out-of-scope
 * head. Main and the verify job take a tag only when a ruleset GitHub lists keeps the job's token from moving
 * it (and from creating a branch of the same name).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { actionDir, FILES, PERIMETERS_YML, REPOSITORY, TwoJobs } from '@perimeter/test-rigs';

let dir = '';
const open: TwoJobs[] = [];
beforeAll(async () => {
  dir = await actionDir();
}, 600_000);
afterEach(async () => {
  for (const jobs of open.splice(0)) await jobs.close();
});

const TAG = 'perimeters-v1';

/** A REST call with `token`, answering status and body. */
async function rest(jobs: TwoJobs, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${jobs.agent.gh.url}/repos/${REPOSITORY}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked field by field
    body: (await response.json().catch(() => null)) as any,
  };
}

/** Both jobs, the tag at main's head made by the owner before the run, and `rulesets` set by the owner. */
async function twoJobs(rulesets: unknown[] = []): Promise<TwoJobs> {
  const jobs = await TwoJobs.create({
    files: FILES,
    actionDir: dir,
    inputs: { 'config-ref': TAG, perimeters: 'implementer' },
  });
  open.push(jobs);
  const main = await rest(jobs, jobs.agent.token, 'GET', '/git/ref/heads/main');
  const owner = jobs.agent.token; // the stand-in's main token stands for the repository's admin
  const tag = { ref: `refs/tags/${TAG}`, sha: main.body.object.sha };
  expect((await rest(jobs, owner, 'POST', '/git/refs', tag)).status).toBe(201);
  for (const ruleset of rulesets)
    expect((await rest(jobs, owner, 'POST', '/rulesets', ruleset)).status).toBe(201);
  return jobs;
}

/**
 * What the agent does with the job's token: a commit on no branch whose perimeters.yml lets implementer write
 * everything, made through the Git database API, and the tag moved to it. Answers the move's status.
 */
async function moveTag(jobs: TwoJobs): Promise<number> {
  const token = jobs.agent.token;
  const head = (await rest(jobs, token, 'GET', '/git/ref/heads/main')).body.object.sha as string;
  const baseTree = (await rest(jobs, token, 'GET', `/git/commits/${head}`)).body.tree.sha as string;
  const wide = PERIMETERS_YML.replace('write: ["src/**"]', 'write: ["**"]');
  expect(wide).not.toBe(PERIMETERS_YML);
  const tree = await rest(jobs, token, 'POST', '/git/trees', {
    base_tree: baseTree,
    tree: [{ path: 'perimeters.yml', mode: '100644', type: 'blob', content: wide }],
  });
  const commit = await rest(jobs, token, 'POST', '/git/commits', {
    message: 'Wider',
    tree: tree.body.sha,
    parents: [head],
  });
  const moved = await rest(jobs, token, 'PATCH', `/git/refs/tags/${TAG}`, {
    sha: commit.body.sha,
    force: true,
  });
  return moved.status;
}

async function receipt(jobs: TwoJobs) {
  const head = await jobs.agent.head();
  const statuses = await jobs.agent.statuses(head, jobs.verifyToken);
  return statuses.find((s) => s.context === 'perimeter');
}

describe('a config-ref tag', { timeout: 180_000 }, () => {
  describe('when no ruleset keeps the job from moving it', () => {
    it('refuses it in main and in the verify job, after the agent moved it: never success', async () => {
      const jobs = await twoJobs();
      const main = await jobs.startAgentJob();
      // soft: the verify job's answer below is the one that counts, and is checked whatever main did
      expect.soft(main.exitCode, main.log).toBe(1);
      expect
        .soft(main.annotations.map((a) => a.message).join('\n'))
        .toContain(
          `config-ref: "${TAG}" is not the default branch "main" or a full commit SHA, and GitHub does not ` +
            `protect it from this job's token (refs/heads/${TAG} does not exist, and no ruleset restricts its ` +
            `creation; refs/tags/${TAG} exists, and no ruleset restricts its updates or deletion)`,
        );
      // the agent's steps run anyway (continue-on-error, say): the tag moves, an out-of-scope file lands
      expect(await moveTag(jobs)).toBe(200);
      await jobs.agent.push({ 'docs/roadmap.md': '# Roadmap\n\nRewritten by an agent.\n' });
      await jobs.endAgentJob();

      const verify = await jobs.verify({ 'config-ref': TAG });
      expect(verify.exitCode).toBe(1);
      const final = await receipt(jobs);
      expect(final?.state).toBe('error');
      expect(final?.description).toContain(`perimeters.yml at ${TAG} cannot judge the agent job`);
      expect(verify.stdout + verify.stderr).not.toMatch(/\n\s+at /);
    });
  });

  describe('when rulesets lock the tag and its branch spelling', () => {
    const LOCKS = [
      {
        name: 'frozen perimeters',
        target: 'tag',
        enforcement: 'active',
        conditions: { ref_name: { include: ['refs/tags/perimeters-*'], exclude: [] } },
        rules: [{ type: 'update' }, { type: 'deletion' }],
      },
      {
        name: 'no perimeters branches',
        target: 'branch',
        enforcement: 'active',
        conditions: { ref_name: { include: ['refs/heads/perimeters-*'], exclude: [] } },
        rules: [{ type: 'creation' }],
      },
    ];

    it("takes it: the agent's move is refused, and the verify job judges by the tag as it was", async () => {
      const jobs = await twoJobs(LOCKS);
      const main = await jobs.startAgentJob();
      expect(main.exitCode, main.log + main.stderr).toBe(0);
      expect(await moveTag(jobs)).toBe(422);
      await jobs.agent.push({ 'docs/roadmap.md': '# Roadmap\n\nRewritten by an agent.\n' });
      await jobs.endAgentJob();

      const verify = await jobs.verify({ 'config-ref': TAG });
      expect(verify.exitCode).toBe(1);
      expect(await receipt(jobs)).toMatchObject({ state: 'failure' });
      expect(verify.annotations).toContainEqual(expect.objectContaining({ file: 'docs/roadmap.md' }));
    });
  });
});
