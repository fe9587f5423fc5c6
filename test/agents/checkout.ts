/**
 * actions/checkout as the workflow runner emulates it: the majors and inputs it accepts, and where a persisted
 * credential lands. Read from actions/checkout v7.0.1 (`action.yml`, `src/git-auth-helper.ts`):
 * https://github.com/actions/checkout/blob/v7.0.1/action.yml
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git } from '@perimeter/test-rigs';

/** Every input actions/checkout v7 declares; the runner only warns about another, the emulation refuses it. */
export const CHECKOUT_INPUTS: ReadonlySet<string> = new Set([
  'repository',
  'ref',
  'token',
  'ssh-key',
  'ssh-known-hosts',
  'ssh-strict',
  'ssh-user',
  'persist-credentials',
  'path',
  'clean',
  'filter',
  'sparse-checkout',
  'sparse-checkout-cone-mode',
  'fetch-depth',
  'fetch-tags',
  'show-progress',
  'lfs',
  'submodules',
  'set-safe-directory',
  'github-server-url',
  'allow-unsafe-pr-checkout',
]);

/**
 * The majors emulated, oldest first: v5 writes the credential into `.git/config`; v6 and later into a file of
 * its own under RUNNER_TEMP that `.git/config` includes. v7 also refuses to fetch a fork's pull request on
 * `pull_request_target` and `workflow_run` (allow-unsafe-pr-checkout), which no workflow run here asks for.
 */
export const CHECKOUT_MAJORS = [5, 6, 7] as const;

export interface CheckoutSettings {
  major: (typeof CHECKOUT_MAJORS)[number];
  /** persist-credentials, default true */
  persist: boolean;
}

/** The major of `uses: actions/checkout@vN` (or `@vN.M.P`) and the step's inputs, checked; throws on anything else. */
export function checkoutSettings(uses: string, inputs: Record<string, string>): CheckoutSettings {
  const version = /^actions\/checkout@v(\d+)(?:\.\d+\.\d+)?$/.exec(uses);
  const major = Number(version?.[1]);
  if (!CHECKOUT_MAJORS.includes(major as CheckoutSettings['major'])) {
    throw new Error(
      `${uses}: the workflow runner emulates actions/checkout ${CHECKOUT_MAJORS.map((m) => `v${m}`).join(', ')} only`,
    );
  }
  const unknown = Object.keys(inputs).filter((name) => !CHECKOUT_INPUTS.has(name));
  if (unknown.length > 0) {
    throw new Error(`${uses}: unexpected input(s) ${unknown.map((name) => `'${name}'`).join(', ')}`);
  }
  const persist = inputs['persist-credentials'] ?? 'true';
  if (persist !== 'true' && persist !== 'false') {
    throw new Error(`${uses}: persist-credentials must be true or false, got ${JSON.stringify(persist)}`);
  }
  return { major: major as CheckoutSettings['major'], persist: persist === 'true' };
}

/**
 * Leaves the token where that major leaves it for the job's later steps, as git's basic credential for
 * github.com. Returns the file that holds it.
 */
export async function persistCredential(
  major: CheckoutSettings['major'],
  workspace: string,
  runnerTemp: string,
  token: string,
): Promise<string> {
  const header = `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  if (major === 5) {
    await git(workspace, ['config', '--local', 'http.https://github.com/.extraheader', header]);
    return join(workspace, '.git', 'config');
  }
  const file = join(runnerTemp, `git-credentials-${randomUUID()}.config`);
  writeFileSync(file, `[http "https://github.com/"]\n\textraheader = ${header}\n`);
  await git(workspace, ['config', '--local', `includeIf.gitdir:${join(workspace, '.git')}.path`, file]);
  return file;
}
