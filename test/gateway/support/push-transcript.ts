import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, type Harness } from '@perimeter/test-rigs';

/**
 * Each probe pushed in turn through `client`, its answer as one line `label: answer`, with every commit SHA
 * named by the order it appeared in (the start head is `<commit 0>`): transcripts of runs on repositories
 * that differ only where the perimeter cannot see compare as they are.
 */
export async function pushTranscript(
  h: Harness,
  client: Client,
  probes: ReadonlyArray<readonly [string, Record<string, unknown>]>,
): Promise<string[]> {
  const known = new Map<string, string>();
  const placeholder = (sha: string): string => {
    if (!known.has(sha)) known.set(sha, `<commit ${known.size}>`);
    return known.get(sha)!;
  };
  placeholder(await h.head());
  const lines: string[] = [];
  for (const [label, args] of probes) {
    const result = await call(client, 'push_files', args);
    placeholder(await h.head());
    lines.push(`${label}: ${JSON.stringify(result).replace(/\b[0-9a-f]{40}\b/g, placeholder)}`);
  }
  return lines;
}
