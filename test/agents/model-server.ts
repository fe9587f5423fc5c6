/**
 * A scripted model behind the two wire formats the clients speak: Anthropic's Messages API (Claude Code,
 * the Agent SDK, Copilot's anthropic provider), with and without streaming, and OpenAI's Responses API
 * (Codex), streamed. Every request is logged; the turns come from a Script.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { MODEL_HOSTS, MODEL_PORT, modelTls } from './model-tls.js';
import type { Conversation, Scripted, Turn } from './script.js';

export interface ModelServer {
  /** the model's URL as the preset of each client's model host names it: https://api.anthropic.com, … */
  urls: { anthropic: string; openai: string; copilot: string };
  /** what the clients need to trust the model's certificate (a test CA's): NODE_EXTRA_CA_CERTS */
  caEnv: Record<string, string>;
  /** method, path and a short note per request */
  log: string[];
  /** request bodies as received, for debugging a client that goes astray */
  bodies: unknown[];
  stop(): Promise<void>;
}

export async function startModelServer(script: Scripted): Promise<ModelServer> {
  const log: string[] = [];
  const bodies: unknown[] = [];
  let ids = 0;
  const nextId = (prefix: string) => `${prefix}_${(++ids).toString().padStart(6, '0')}`;

  const tls = await modelTls();
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    void (async () => {
      const raw = await body(req);
      let parsed: Record<string, unknown> = {};
      try {
        parsed = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      } catch {
        // not JSON; answered below
      }
      bodies.push({ method: req.method, url: req.url, body: parsed });
      const path = (req.url ?? '').split('?')[0] ?? '';
      if (req.method === 'POST' && path.endsWith('/messages/count_tokens')) {
        log.push(`${req.method} ${path}`);
        return json(res, { input_tokens: 100 });
      }
      if (req.method === 'POST' && path.endsWith('/messages')) return anthropic(parsed, res);
      if (req.method === 'POST' && path.endsWith('/responses')) return responses(parsed, res);
      if (req.method === 'GET' && path.endsWith('/models')) {
        log.push(`${req.method} ${path}`);
        return json(res, {
          object: 'list',
          data: [{ id: 'scripted-model', object: 'model', type: 'model' }],
        });
      }
      log.push(`${req.method} ${path} (404)`);
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no ${path}` } }));
    })().catch((error: unknown) => {
      log.push(`error: ${String(error)}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  function anthropic(request: Record<string, unknown>, res: ServerResponse): void {
    const conversation = anthropicConversation(request);
    const direct = ((request.tools as Block[] | undefined) ?? []).map((t) => String(t.name ?? ''));
    let turn: Turn = { kind: 'text', text: 'OK' };
    // side requests (titles, probes) come without tools
    if (direct.length > 0 && script.mine(conversation)) {
      // Claude Code defers MCP tools: only their names are listed until ToolSearch loads them
      const deferred = script.names(conversation.offered).filter((name) => !direct.includes(name));
      const searched = conversation.calls.some((c) => c.name === 'ToolSearch');
      turn =
        deferred.length > 0 && direct.includes('ToolSearch') && !searched
          ? { kind: 'call', name: 'ToolSearch', input: { query: `select:${deferred.join(',')}` } }
          : script.next(conversation);
    }
    log.push(`POST /v1/messages ${request.stream ? 'stream' : 'json'} -> ${describe(turn)}`);
    const id = nextId('msg');
    const model = typeof request.model === 'string' ? request.model : 'scripted-model';
    const block =
      turn.kind === 'call'
        ? { type: 'tool_use', id: nextId('toolu'), name: turn.name, input: turn.input }
        : { type: 'text', text: turn.text };
    const stop = turn.kind === 'call' ? 'tool_use' : 'end_turn';
    const usage = {
      input_tokens: 100,
      output_tokens: 20,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    };
    if (!request.stream) {
      return json(res, {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [block],
        stop_reason: stop,
        stop_sequence: null,
        usage,
      });
    }
    const events = sse(res);
    events('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    });
    if (block.type === 'tool_use') {
      events('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      events('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
    } else {
      events('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'text', text: '' },
      });
      events('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: block.text },
      });
    }
    events('content_block_stop', { type: 'content_block_stop', index: 0 });
    events('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: 20 },
    });
    events('message_stop', { type: 'message_stop' });
    res.end();
  }

  function responses(request: Record<string, unknown>, res: ServerResponse): void {
    const conversation = responsesConversation(request);
    const turn: Turn = script.mine(conversation) ? script.next(conversation) : { kind: 'text', text: 'OK' };
    log.push(`POST /v1/responses -> ${describe(turn)}`);
    const id = nextId('resp');
    const model = typeof request.model === 'string' ? request.model : 'scripted-model';
    const item =
      turn.kind === 'call'
        ? {
            type: 'function_call',
            id: nextId('fc'),
            call_id: nextId('call'),
            ...responsesName(turn.name),
            arguments: JSON.stringify(turn.input),
            status: 'completed',
          }
        : {
            type: 'message',
            id: nextId('msg'),
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: turn.text, annotations: [] }],
          };
    const base = {
      id,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      model,
      status: 'in_progress',
      output: [],
    };
    const usage = {
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 120,
    };
    const events = sse(res);
    events('response.created', { type: 'response.created', response: base });
    events('response.output_item.added', { type: 'response.output_item.added', output_index: 0, item });
    events('response.output_item.done', { type: 'response.output_item.done', output_index: 0, item });
    events('response.completed', {
      type: 'response.completed',
      response: { ...base, status: 'completed', output: [item], usage },
    });
    res.end();
  }

  // on the presets' port, at the address the sandbox maps their names to (one model at a time)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(MODEL_PORT, '127.0.0.1', resolve);
  });
  const url = (host: string): string => `https://${host}`;
  return {
    urls: { anthropic: url(MODEL_HOSTS[0]), openai: url(MODEL_HOSTS[1]), copilot: url(MODEL_HOSTS[2]) },
    caEnv: { NODE_EXTRA_CA_CERTS: tls.ca },
    log,
    bodies,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Codex offers a perimeter's tools in a namespace; a call names both (see responsesConversation). */
function responsesName(name: string): { name: string; namespace?: string } {
  const at = name.indexOf(NAMESPACE_SEPARATOR);
  return at < 0
    ? { name }
    : { namespace: name.slice(0, at), name: name.slice(at + NAMESPACE_SEPARATOR.length) };
}

const NAMESPACE_SEPARATOR = '::';

function describe(turn: Turn): string {
  return turn.kind === 'call'
    ? `call ${turn.name} ${JSON.stringify(turn.input)}`
    : `text ${JSON.stringify(turn.text)}`;
}

type Block = Record<string, unknown> & { type?: string };

function anthropicConversation(request: Record<string, unknown>): Conversation {
  const offered = ((request.tools as Block[] | undefined) ?? []).map((t) => String(t.name ?? t.type ?? ''));
  // deferred tools are named in the system prompt or a message, not in `tools`
  const text = JSON.stringify([request.system ?? '', request.messages ?? []]);
  for (const [name] of text.matchAll(/mcp__[A-Za-z0-9_-]+__[A-Za-z0-9_]+/g)) {
    if (!offered.includes(name)) offered.push(name);
  }
  const calls: Conversation['calls'] = [];
  const byId = new Map<string, { name: string; result: string | undefined }>();
  for (const message of (request.messages as Array<{ role: string; content: unknown }> | undefined) ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Block[]) {
      if (block.type === 'tool_use') {
        const call = { name: String(block.name), result: undefined as string | undefined };
        byId.set(String(block.id), call);
        calls.push(call);
      } else if (block.type === 'tool_result') {
        const call = byId.get(String(block.tool_use_id));
        if (call) call.result = textOf(block.content);
      }
    }
  }
  return { offered, calls };
}

/** Text of a tool result as the model sees it: strings and text blocks, joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return (content as Block[])
      .map((b) =>
        typeof b === 'string'
          ? b
          : b.type === 'text' || b.type === 'input_text' || b.type === 'output_text'
            ? String(b.text)
            : JSON.stringify(b),
      )
      .join('\n');
  }
  return content === undefined ? '' : JSON.stringify(content);
}

function responsesConversation(request: Record<string, unknown>): Conversation {
  const offered: string[] = [];
  for (const tool of (request.tools as Block[] | undefined) ?? []) {
    if (tool.type === 'namespace' && Array.isArray(tool.tools)) {
      for (const inner of tool.tools as Block[])
        offered.push(`${String(tool.name)}${NAMESPACE_SEPARATOR}${String(inner.name)}`);
    } else {
      offered.push(String(tool.name ?? tool.type ?? ''));
    }
  }
  const calls: Conversation['calls'] = [];
  const byId = new Map<string, { name: string; result: string | undefined }>();
  const input = Array.isArray(request.input) ? (request.input as Block[]) : [];
  for (const item of input) {
    if (item.type === 'function_call') {
      const name = item.namespace
        ? `${String(item.namespace)}${NAMESPACE_SEPARATOR}${String(item.name)}`
        : String(item.name);
      const call = { name, result: undefined as string | undefined };
      byId.set(String(item.call_id), call);
      calls.push(call);
    } else if (item.type === 'function_call_output') {
      const call = byId.get(String(item.call_id));
      if (call) call.result = textOf(item.output);
    }
  }
  return { offered, calls };
}

function sse(res: ServerResponse): (event: string, data: unknown) => void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  return (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function json(res: ServerResponse, value: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
