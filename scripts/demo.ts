/**
 * `npm run demo`: the whole lifecycle of the action on a sample repository in the GitHub stand-in, with the
 * committed dist/ bundles run the way a runner runs them: main starts the gateway, a scripted agent works
 * through its endpoint (reads, a hidden read, a refused write, a good push), a rogue step pushes around the
 * gateway with the job's token, and post recomputes everything from the repository and posts the receipt.
 */
import { performance } from 'node:perf_hooks';
import {
  FILES,
  Job,
  PERIMETERS_YML,
  REPO_ROOT,
  REPOSITORY,
  type StepResult,
  text,
} from '@perimeter/test-rigs';
import { plainSummary, shownLog } from './demo-text.js';

const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const dim = (s: string) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s);
const step = (s: string) => console.log(`\n${bold(`== ${s}`)}`);
const indent = (s: string, by = '   ') =>
  s
    .trimEnd()
    .split('\n')
    .map((l) => by + l)
    .join('\n');
const firstLine = (s: string) => s.split('\n')[0] ?? '';

function showStep(name: string, result: StepResult, masks: string[]): void {
  console.log(dim(indent(shownLog(result.stdout, masks).join('\n'), `   ${name} | `)));
  if (result.stderr.trim()) console.log(dim(indent(result.stderr, `   ${name} ! `)));
}

async function main(): Promise<void> {
  step(`A repository in the GitHub stand-in: ${REPOSITORY}, branch agent/count-widgets`);
  console.log(indent(`files: ${Object.keys(FILES).join(', ')}`));
  console.log(indent(`perimeters.yml on main:\n${indent(PERIMETERS_YML)}`));
  const job = await Job.create({
    files: FILES,
    branch: 'agent/count-widgets',
    actionDir: REPO_ROOT,
    inputs: { perimeters: 'implementer' },
  });
  let failed: boolean;
  try {
    step('main: node dist/main/index.js (inputs: perimeters: implementer)');
    const t0 = performance.now();
    const main = await job.main();
    const t1 = performance.now();
    showStep('main', main, job.runner.jobMasks);
    if (main.exitCode !== 0) throw new Error(`the main step failed (exit ${main.exitCode})`);
    console.log(indent(`ready in ${Math.round(t1 - t0)} ms (process start included)`));
    console.log(indent(`outputs.endpoints    = ${main.outputs.endpoints}`));
    console.log(indent(`outputs.mcp-config   = ${main.outputs['mcp-config']}`));
    console.log(indent(`outputs.codex-config = ${main.outputs['codex-config']}`));

    step('agent: an MCP client connected with the mcp-config file (perimeter "implementer")');
    const agent = await job.agent('implementer');
    const tools = await agent.listTools();
    console.log(indent(`tools: ${tools.tools.map((t) => t.name).join(', ')}`));
    const call = async (label: string, name: string, args: Record<string, unknown>) => {
      const result = await agent.callTool({ name, arguments: args });
      const body = text(result);
      console.log(
        indent(`${label}\n${indent(body.length > 600 ? `${body.slice(0, 600)}…` : body, '     ')}`),
      );
      return result;
    };
    await call('get_tree (recursive): only what implementer may read', 'get_tree', { recursive: true });
    await call('get_file src/count.ts', 'get_file', { path: 'src/count.ts' });
    await call('get_file docs/roadmap.md: hidden, answered exactly like a missing file', 'get_file', {
      path: 'docs/roadmap.md',
    });
    await call('push_files test/count.test.ts: outside write, refused whole', 'push_files', {
      message: 'Add a test',
      files: [{ path: 'test/count.test.ts', content: 'test("x", () => {});\n' }],
    });
    await call('push_files src/count.ts: inside write, one commit on agent/count-widgets', 'push_files', {
      message: 'Count only widgets',
      files: [{ path: 'src/count.ts', content: 'export const count = (xs: string[]) => xs.length;\n' }],
    });

    step('rogue step: `git push` with the job token, around the gateway, changing docs/roadmap.md');
    const sha = await job.push(
      { 'docs/roadmap.md': '# Roadmap\n\nRewritten by an agent.\n' },
      { message: 'Tweak roadmap' },
    );
    console.log(indent(`pushed ${sha.slice(0, 7)} to agent/count-widgets`));

    step(
      'post: node dist/post/index.js (stops the gateway, recomputes from the repository, posts the receipt)',
    );
    const post = await job.post();
    showStep('post', post, job.runner.jobMasks);
    console.log(indent(`post step exit code: ${post.exitCode} (fail-on-violation: true)`));

    step('The receipt: commit status on the branch head');
    const head = await job.head();
    const [status] = await job.statuses(head);
    console.log(
      indent(
        `${head.slice(0, 7)}  ${status?.context}: ${status?.state}\n"${status?.description}"\n${status?.target_url}`,
      ),
    );
    step('Annotations');
    for (const a of post.annotations)
      console.log(
        indent(`${a.level}${a.file ? ` ${a.file}` : ''}: ${a.title ?? ''} ${firstLine(a.message)}`),
      );
    step('Job summary (its markdown as text)');
    console.log(indent(plainSummary(post.summary)));
    failed = status?.state !== 'failure' || post.exitCode !== 1;
    if (failed) console.error('\nunexpected: the rogue push should have failed the receipt');
  } finally {
    await job.close();
  }
  process.exit(failed ? 1 : 0);
}

main().catch((error: unknown) => {
  console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
