/** Runs the scripted session through a real gateway endpoint (MCP SDK client over HTTP) and meters each step. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FakeGithub } from '@perimeter/fake-github';
import { answerOf, callTool, startBenchGateway, textOf, type StandIn } from '../support/stand-in.js';
import { add, metered, ZERO, type Cost } from './counting.js';
import { describeStep, type CommitRef, type Step } from './session-script.js';

export interface StepRecord {
  label: string;
  tool: Step['tool'];
  cost: Cost;
  isError: boolean;
  /** get_file of a path whose content this session already read, with no push since the previous call */
  warmRepeat?: boolean;
  /** push_files: files in the push */
  files?: number;
}

export interface SessionRun {
  steps: StepRecord[];
  total: Cost;
}

export async function runPerimeterSession(
  standIn: StandIn,
  config: string,
  perimeter: string,
  steps: Step[],
): Promise<SessionRun> {
  const bench = await startBenchGateway(standIn, config);
  try {
    return await runSessionSteps(await bench.connect(perimeter), standIn.fake, standIn.commits, steps);
  } finally {
    await bench.close();
  }
}

/** The script's calls through `client`, each metered on `fake`; `commits`: the seed, then the history. */
export async function runSessionSteps(
  client: Client,
  fake: FakeGithub,
  commits: string[],
  steps: Step[],
): Promise<SessionRun> {
  const pushes: string[] = [];
  const seen = new Map<string, string>();
  const resolve = (ref: CommitRef): string => ('push' in ref ? pushes[ref.push]! : commits[ref.history]!);
  const records: StepRecord[] = [];
  let total = ZERO;
  let previous: Step['tool'] | null = null;
  for (const step of steps) {
    const args = step.tool === 'get_commit' ? { sha: resolve(step.commit) } : step.args;
    const { value: result, cost } = await metered(fake, () => callTool(client, step.tool, args));
    const record: StepRecord = {
      label: describeStep(step),
      tool: step.tool,
      cost,
      isError: result.isError === true,
    };
    const structured = answerOf(result);
    if (step.tool === 'push_files') {
      if (result.isError) throw new Error(`${record.label} failed: ${textOf(result)}`);
      pushes.push(String(structured?.commit));
      record.files = step.args.files.length;
    }
    if (step.tool === 'get_file' && !result.isError) {
      const sha = String(structured?.sha);
      record.warmRepeat = seen.get(step.args.path) === sha && previous !== 'push_files';
      seen.set(step.args.path, sha);
    }
    records.push(record);
    total = add(total, cost);
    previous = step.tool;
  }
  return { steps: records, total };
}
