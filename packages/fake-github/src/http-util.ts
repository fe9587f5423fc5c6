import type { IncomingMessage } from 'node:http';

export const DOCS = 'https://docs.github.com/rest';

export interface ApiResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A JSON body already serialized by the handler (for answers too large to build as objects). */
export class EncodedJson {
  constructor(readonly text: string) {}
}

/** An answer GitHub gives as an error; thrown by handlers and turned into the response. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return { message: this.message, documentation_url: DOCS, status: String(this.status), ...this.extra };
  }
}

export const notFound = (): HttpError => new HttpError(404, 'Not Found');
export const emptyRepository = (): HttpError => new HttpError(409, 'Git Repository is empty.');
/**
 * What a miss means: GitHub checks for an empty repository first (409, or `whenEmpty`), else `otherwise`.
 * Checked only on a miss, so a hit costs no extra git call.
 */
export async function missing(
  repo: { isEmpty(): Promise<boolean> },
  otherwise: () => HttpError = notFound,
  whenEmpty: () => HttpError = emptyRepository,
): Promise<HttpError> {
  return (await repo.isEmpty()) ? whenEmpty() : otherwise();
}
export const unprocessable = (message: string, extra: Record<string, unknown> = {}): HttpError =>
  new HttpError(422, message, extra);

/** GitHub's "Validation Failed" with one error item. */
export function validationFailed(resource: string, field: string, code: string, message?: string): HttpError {
  const error: Record<string, unknown> = { resource, code, field };
  if (message) error.message = message;
  return new HttpError(422, 'Validation Failed', { errors: [error] });
}

export async function readBody(req: IncomingMessage, limit = 200 * 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpError(413, 'Request body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const raw = (await readBody(req)).toString('utf8');
  if (raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new HttpError(400, 'Problems parsing JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new HttpError(400, 'Body should be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

export function isSha(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{40}$/.test(value);
}

/** Page parameters as GitHub reads them: per_page up to 100 (default 30), page from 1. */
export function pageParams(url: URL): { perPage: number; page: number } {
  const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30) || 30));
  const page = Math.max(1, Math.floor(Number(url.searchParams.get('page') ?? 1)) || 1);
  return { perPage, page };
}

/** A Link header for page-numbered lists: next/last when more pages exist, first/prev when not on page 1. */
export function linkHeader(url: URL, page: number, hasNext: boolean, lastPage?: number): string | undefined {
  const at = (n: number): string => {
    const copy = new URL(url.href);
    copy.searchParams.set('page', String(n));
    return copy.href;
  };
  const links: string[] = [];
  if (hasNext) links.push(`<${at(page + 1)}>; rel="next"`);
  if (hasNext && lastPage) links.push(`<${at(lastPage)}>; rel="last"`);
  if (page > 1) links.push(`<${at(page - 1)}>; rel="prev"`, `<${at(1)}>; rel="first"`);
  return links.length > 0 ? links.join(', ') : undefined;
}
