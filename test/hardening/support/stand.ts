/**
 * A gateway in front of the GitHub stand-in, with the upstream's tuning (timeouts, retries, rate-limit
 * waits) open to the test, plus the raw HTTP door a hostile client would use.
 */
import { randomBytes } from 'node:crypto';
import { startHarness, type Harness, type HarnessOptions } from '@perimeter/test-rigs';

export { answerOf, call as callTool, OWNER, REPO, textOf } from '@perimeter/test-rigs';

export type StandOptions = Omit<HarnessOptions, 'token' | 'treeEntryLimit'>;

export interface Stand extends Harness {
  /** One raw HTTP request to a perimeter endpoint (bearer secret included unless headers override it). */
  post(perimeter: string, body: string | Uint8Array, headers?: Record<string, string>): Promise<RawAnswer>;
}

export interface RawAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** A format-realistic installation token: ghs_ and 36 characters. */
export function realisticToken(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return `ghs_${[...randomBytes(36)].map((b) => alphabet[b % alphabet.length]).join('')}`;
}

export async function startStand(options: StandOptions): Promise<Stand> {
  const harness = await startHarness({ ...options, token: realisticToken() });
  const { gateway, secrets } = harness;
  return {
    ...harness,
    async post(perimeter, body, headers = {}) {
      const response = await fetch(`${gateway.url}/mcp/${perimeter}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${secrets[perimeter]}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body,
      });
      return {
        status: response.status,
        contentType: response.headers.get('content-type') ?? '',
        text: await response.text(),
      };
    },
  };
}

/** A JSON-RPC tools/call body. */
export function toolCall(name: string, args: unknown, id: unknown = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
}
