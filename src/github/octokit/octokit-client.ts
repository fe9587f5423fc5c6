import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import Bottleneck from 'bottleneck';
import type { Octokit } from '@octokit/core';
import type { Scrubber } from '../../safety/secret-forms.js';
import { toUpstreamError } from './errors.js';
import { graphqlFailure } from './graphql-commit.js';
import type { UpstreamStats } from '../upstream.js';

export interface ClientOptions {
  token: string;
  baseUrl: string;
  userAgent?: string;
  /** retries of failed reads (5xx, network); writes are never retried this way. Default 2. */
  readRetries: number;
  /** base of the retry back-off in ms (waits base·1, base·4, …). Default 1000. */
  retryBaseMs: number;
  /** longest wait for a rate-limit reset or retry-after before failing with rate_limited. Default 60. */
  maxRateLimitWaitSeconds: number;
  /** content-creating requests per minute (GitHub's secondary limit is 80). */
  writesPerMinute: number;
  /** the signal that ends one attempt after `ms`. Default AbortSignal.timeout; tests inject their own clock. */
  attemptSignal?: (ms: number) => AbortSignal;
}

export type Client = ReturnType<typeof getOctokit>;

/** Status codes the retry plugin must not repeat: client errors, and rate limits (throttling owns those). */
const DO_NOT_RETRY = [304, 400, 401, 403, 404, 409, 410, 422, 429, 451];

/**
 * Counts every HTTP request actually sent. Registered before the throttling and retry plugins, so its
 * wrap sits inside theirs and sees each retry; a 304 arrives here as a thrown RequestError.
 */
function countingPlugin(stats: UpstreamStats) {
  return (octokit: Octokit) => {
    octokit.hook.wrap('request', async (request, options) => {
      stats.requests += 1;
      try {
        return await request(options);
      } catch (error) {
        if ((error as { status?: number }).status === 304) stats.notModified += 1;
        throw error;
      }
    });
    return {};
  };
}

/**
 * Gives each attempt its own timeout. Registered inside the throttling and retry plugins: a signal made
 * once per call would already be spent when a retry or a rate-limit wait sends the request again.
 */
function attemptTimeoutPlugin(signal = (ms: number) => AbortSignal.timeout(ms)) {
  return (octokit: Octokit) => {
    octokit.hook.wrap('request', async (request, options) => {
      // Every hook is bound to this one options object, so the signal is set on it, not on a copy.
      const settings = options.request as { attemptTimeoutMs?: number; signal?: AbortSignal } | undefined;
      if (settings?.attemptTimeoutMs) settings.signal = signal(settings.attemptTimeoutMs);
      return request(options);
    });
    return {};
  };
}

/**
 * The same client without the throttling and retry plugins, for conditional reads that usually answer
 * 304. Their Bottleneck queues wait on several timers per request (about 15 ms per warm read, measured),
 * far more than the request itself costs.
 */
export function createLightClient(options: ClientOptions, stats: UpstreamStats): Client {
  return getOctokit(
    options.token,
    {
      baseUrl: options.baseUrl,
      userAgent: options.userAgent ?? 'perimeter',
      log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    },
    attemptTimeoutPlugin(options.attemptSignal),
    countingPlugin(stats),
  );
}

export function createClient(options: ClientOptions, stats: UpstreamStats): Client {
  // A rate-limited request was refused before GitHub acted on it, so repeating it is safe even for a write;
  // but only once, and only when the wait is short.
  const onLimit = (retryAfter: number, _options: unknown, _octokit: unknown, retryCount: number): boolean =>
    retryCount === 0 && retryAfter <= options.maxRateLimitWaitSeconds;
  const writes = new Bottleneck.Group({
    maxConcurrent: 1,
    reservoir: options.writesPerMinute,
    reservoirRefreshAmount: options.writesPerMinute,
    reservoirRefreshInterval: 60_000,
  });
  return getOctokit(
    options.token,
    {
      baseUrl: options.baseUrl,
      userAgent: options.userAgent ?? 'perimeter',
      log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
      throttle: { onRateLimit: onLimit, onSecondaryRateLimit: onLimit, write: writes },
      retry: {
        doNotRetry: DO_NOT_RETRY,
        retries: options.readRetries,
        retryAfterBaseValue: options.retryBaseMs,
      },
    } as Parameters<typeof getOctokit>[1],
    attemptTimeoutPlugin(options.attemptSignal),
    countingPlugin(stats),
    throttling,
    retry,
  );
}

type Params = Record<string, unknown>;

/** After the light client meets a failure, how long every request takes the full path instead. */
const LIGHT_PAUSE_MS = 60_000;

/** Requests for one repository: each bounded in time, writes never retried, errors made UpstreamErrors. */
export class RestClient {
  constructor(
    private readonly client: Client,
    private readonly owner: string,
    private readonly repo: string,
    private readonly scrub: Scrubber,
    private readonly timeoutMs: number,
    private readonly light?: Client,
  ) {}

  private lightPausedUntil = 0;

  /** A 304 is rethrown as it came (callers asked for it); anything else becomes an UpstreamError. */
  async send<T>(operation: string, route: string, params: Params = {}, write = false, headers?: Params) {
    try {
      return await this.request<T>(this.client, route, params, write, headers);
    } catch (error) {
      if ((error as { status?: number }).status === 304) throw error;
      throw toUpstreamError(error, operation, this.scrub);
    }
  }

  /**
   * A read sent first through the light client; anything but 200, 304 or 404 (a 5xx, a rate limit, a
   * timeout) is sent again through the full one, which retries and waits as usual, and the full path is
   * then used for a while, so a struggling GitHub does not get every request twice.
   */
  async sendLight<T>(operation: string, route: string, params: Params = {}, headers?: Params) {
    if (this.light && Date.now() >= this.lightPausedUntil) {
      try {
        return await this.request<T>(this.light, route, params, false, headers);
      } catch (error) {
        const status = (error as { status?: number }).status;
        if (status === 304) throw error;
        if (status === 404) throw toUpstreamError(error, operation, this.scrub);
        this.lightPausedUntil = Date.now() + LIGHT_PAUSE_MS;
      }
    }
    return this.send<T>(operation, route, params, false, headers);
  }

  private async request<T>(client: Client, route: string, params: Params, write: boolean, headers?: Params) {
    const response = await client.request(route, {
      owner: this.owner,
      repo: this.repo,
      ...params,
      ...(headers ? { headers } : {}),
      request: { attemptTimeoutMs: this.timeoutMs, ...(write ? { retries: 0 } : {}) },
    } as Parameters<Client['request']>[1]);
    return { data: response.data as T, headers: response.headers as Record<string, string | undefined> };
  }

  /** One GraphQL call for this repository (`$owner` and `$name` are set); errors become UpstreamErrors. */
  async graphql<T>(operation: string, query: string, variables: Params = {}): Promise<T> {
    try {
      return await this.client.graphql<T>(query, {
        owner: this.owner,
        name: this.repo,
        ...variables,
        request: { attemptTimeoutMs: this.timeoutMs },
      });
    } catch (error) {
      throw toUpstreamError(error, operation, this.scrub);
    }
  }

  /**
   * One GraphQL mutation, sent once (it may have written when its answer is lost). GraphQL errors in the
   * answer become UpstreamErrors by graphqlFailure; other failures as for REST (a 5xx is `unavailable`).
   */
  async mutate<T>(operation: string, query: string, variables: Params): Promise<T> {
    try {
      return await this.client.graphql<T>(query, {
        ...variables,
        request: { attemptTimeoutMs: this.timeoutMs, retries: 0 },
      });
    } catch (error) {
      throw graphqlFailure(error, operation, this.scrub) ?? toUpstreamError(error, operation, this.scrub);
    }
  }

  async read<T>(operation: string, route: string, params?: Params): Promise<T> {
    return (await this.send<T>(operation, route, params)).data;
  }

  async write<T>(operation: string, route: string, params: Params): Promise<T> {
    return (await this.send<T>(operation, route, params, true)).data;
  }
}
