import { setTimeout as sleep } from 'node:timers/promises';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { checkBranch, type Perimeter } from '../policy/index.js';
import type {
  ConversationRequest,
  Conversations,
  PullRequests,
  RepoCoordinates,
  RepoReads,
  RepoWrites,
} from '../github/index.js';
import { Conversation, type ConversationSettings } from './conversation/conversation.js';
import { NO_FILTER, type AnswerFilter } from '../safety/answer-filter.js';
import { MIN_SECRET_LENGTH } from './serving/bearer-secret.js';
import { CallTracker, TrackingTransport } from './serving/calls.js';
import { secretDigest } from './serving/guard.js';
import { History } from './reads/history.js';
import { listen, type ConnectionCounts, type Endpoint } from './serving/http-server.js';
import { Ledger } from '../ledger/index.js';
import { createMcpServer, type PerimeterRuntime } from './serving/mcp-server.js';
import { UpstreamMeter } from './serving/meter.js';
import { Pusher } from './push/push.js';
import { RepoView } from './reads/repo-view.js';
import { TrustedInstructions } from './reads/trusted-instructions.js';
import { selectTools } from './tools/select.js';

export interface GatewayOptions {
  upstream: RepoCoordinates & RepoReads & RepoWrites;
  branch: string;
  perimeters: Perimeter[];
  /** perimeter name -> bearer secret */
  secrets: Record<string, string>;
  host?: '127.0.0.1';
  /** 0 or absent: a free port */
  port?: number;
  /** JSONL, HMAC-chained with key */
  ledger: { path: string; key: string };
  /** the content-safety hook every answer passes through; identity by default */
  filter?: AnswerFilter;
  /** where diagnostic lines go (each passes the filter first); stderr by default */
  log?: (line: string) => void;
  /**
   * The trusted ref perimeters.yml was read from: agent instruction files are served from it (unless a
   * perimeter says `instructions: branch`). Absent: they are read from the bound branch like any file.
   */
  instructionsRef?: string;
  /** the conversation tools' settings and the upstream they open pull requests and comment through; absent: those tools fail */
  conversation?: {
    settings: ConversationSettings;
    upstream: Conversations & Pick<PullRequests, 'createPullRequest'> & Pick<RepoReads, 'getRepository'>;
    /** with staged writes: keeps each request for the apply job */
    stage?: (request: ConversationRequest) => Promise<void>;
  };
}

export interface RunningGateway {
  url: string;
  port: number;
  /** perimeter name -> endpoint URL */
  endpoints: Record<string, string>;
  /** request-body bytes held right now, and the most the listener holds at once */
  buffered(): { bytes: number; limit: number };
  /** connections held right now: without a perimeter's secret, and of each perimeter */
  connections(): ConnectionCounts;
  close(): Promise<void>;
}

/** Beyond the largest push a perimeter allows (base64 grows it by a third): room for JSON and message. */
const BODY_SLACK_BYTES = 4 * 1_048_576;
/** How long close waits for calls whose clients hung up before their answer. */
const CLOSE_GRACE_MS = 15_000;

export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  checkOptions(options);
  const filter = options.filter ?? NO_FILTER;
  const write = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const log = (line: string): void =>
    void filter.redact(line).then(
      (r) => write(r.text),
      () => write('[a log line was withheld: it could not be checked for secrets]'),
    );
  const { upstream, branch } = options;
  const repository = `${upstream.owner}/${upstream.repo}`;
  const view = new RepoView(upstream, branch);
  const shared = {
    repository,
    branch,
    view,
    history: new History(upstream, branch),
    pusher: new Pusher(view, filter),
    scopeRequests: { recorded: 0 },
    instructions:
      options.instructionsRef === undefined ? null : new TrustedInstructions(view, options.instructionsRef),
    conversation:
      options.conversation === undefined
        ? null
        : new Conversation(
            options.conversation.upstream,
            options.conversation.settings,
            filter,
            options.conversation.stage ?? null,
          ),
    filter,
    log,
  };
  const meter = new UpstreamMeter(upstream);
  const ledger = await Ledger.open(options.ledger.path, options.ledger.key);

  const endpoints = new Map<string, Endpoint>();
  const unfinished = new Set<Promise<void>>();
  for (const perimeter of options.perimeters) {
    const runtime: PerimeterRuntime = { ...shared, perimeter, tools: selectTools(perimeter) };
    const services = { perimeter: perimeter.name, ledger, meter, filter, log };
    endpoints.set(perimeter.name, {
      secretDigest: secretDigest(options.secrets[perimeter.name]!),
      maxBodyBytes: Math.ceil((perimeter.spec.limits.bytesPerPush * 4) / 3) + BODY_SLACK_BYTES,
      async handle(req, res, body) {
        const tracker = new CallTracker(services);
        const server = createMcpServer(runtime, tracker);
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        // A client that hangs up does not cut a call short: it still finishes and is recorded.
        res.on('close', () => {
          const idle = tracker.idle().then(() => {
            void transport.close();
            void server.close();
          });
          unfinished.add(idle);
          void idle.finally(() => unfinished.delete(idle));
        });
        await server.connect(new TrackingTransport(transport, tracker));
        await transport.handleRequest(req, res, body);
      },
    });
  }

  let http;
  try {
    http = await listen(options.port ?? 0, endpoints, log);
  } catch (error) {
    await ledger.close();
    throw error;
  }
  await ledger.append({ event: 'start', repository, branch, perimeters: [...endpoints.keys()] });
  const url = `http://127.0.0.1:${http.port}`;
  let closing: Promise<void> | null = null;
  return {
    url,
    port: http.port,
    buffered: () => http.buffered(),
    connections: () => http.connections(),
    endpoints: Object.fromEntries([...endpoints.keys()].map((name) => [name, `${url}/mcp/${name}`])),
    close() {
      closing ??= (async () => {
        await http.close();
        await Promise.race([Promise.all(unfinished), sleep(CLOSE_GRACE_MS, undefined, { ref: false })]);
        await ledger.append({ event: 'stop' }).catch(() => log('could not write the closing ledger record'));
        await ledger.close();
      })();
      return closing;
    },
  };
}

function checkOptions(options: GatewayOptions): void {
  if (options.host !== undefined && options.host !== '127.0.0.1')
    throw new Error(`the gateway binds 127.0.0.1 only, not ${String(options.host)}`);
  if (options.perimeters.length === 0) throw new Error('no perimeter to serve');
  const names = new Set<string>();
  for (const perimeter of options.perimeters) {
    if (names.has(perimeter.name)) throw new Error(`perimeter "${perimeter.name}" is listed twice`);
    names.add(perimeter.name);
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(perimeter.name))
      throw new Error(`perimeter name "${perimeter.name}" cannot be a URL segment`);
    const secret = options.secrets[perimeter.name];
    if (secret === undefined || secret.length < MIN_SECRET_LENGTH) {
      throw new Error(
        `perimeter "${perimeter.name}" needs a bearer secret of at least ${MIN_SECRET_LENGTH} characters`,
      );
    }
  }
  checkBranch(options.perimeters, options.branch);
}
