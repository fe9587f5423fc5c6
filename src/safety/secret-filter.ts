import type { AnswerFilter, Redaction } from './answer-filter.js';
import { secretFindings, secretMatcher } from './secret-forms.js';
import { encodedFindings } from './encoded/encoded-secrets.js';
import type { Finding } from './finding.js';
import { formatFindings } from './format-rules.js';
import { keyMaterialFindings } from './key-material.js';
import { normalizeForDetection, originalSpan } from './normalize.js';
import { pemBodyFindings } from './encoded/pem-bodies.js';
import { RedactionCache } from './redaction-cache.js';
import { secretlintFindings } from './secretlint-detector.js';
import { settingFindings } from './secret-settings.js';
import { secretShapeFindings } from './secret-shapes.js';
import { spokenFindings } from './spoken-secrets.js';

export interface SecretFilterOptions {
  /**
   * Values hidden wherever they appear, raw, URL-encoded, hex or base64, also under further layers (the
   * run's own token, endpoint secrets). Matched exactly: only a whole, correct guess of one would change an answer. Values
   * shorter than 8 characters are ignored.
   */
  extraSecrets?: readonly string[];
}

/** The filter, and how much scanning it did: texts it scanned, and texts it answered from its cache. */
export interface SecretFilter extends AnswerFilter {
  stats(): { scans: number; cached: number };
}

/** Thrown (as a rejection) when detection fails: the caller answers with an error, never the text. */
export class ContentSafetyError extends Error {
  readonly code = 'detector-failed';
  constructor(cause: unknown) {
    super(
      `content safety: the secret detector failed (${cause instanceof Error ? cause.name : typeof cause}); the answer is withheld`,
    );
    this.name = 'ContentSafetyError';
  }
}

/** Overlapping findings become one span, named by the most specific detector among them. */
export function mergeFindings(findings: Finding[]): Finding[] {
  const sorted = [...findings].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Finding[] = [];
  for (const finding of sorted) {
    const previous = merged.at(-1);
    if (previous && finding.start < previous.end) {
      previous.end = Math.max(previous.end, finding.end);
      previous.credential ||= finding.credential;
      if (finding.rank > previous.rank) {
        previous.kind = finding.kind;
        previous.rank = finding.rank;
      }
    } else {
      merged.push({ ...finding });
    }
  }
  return merged;
}

export function applyRedaction(text: string, spans: Finding[]): Redaction {
  const kinds: Record<string, number> = {};
  let out = '';
  let at = 0;
  for (const span of spans) {
    out += `${text.slice(at, span.start)}[hidden: ${span.kind}]`;
    at = span.end;
    kinds[span.kind] = (kinds[span.kind] ?? 0) + 1;
  }
  return {
    text: out + text.slice(at),
    hidden: spans.length,
    kinds,
    spans: spans.map(({ start, end }) => ({ start, end })),
  };
}

/**
 * The content-safety filter: secretlint's recommended rules (minus comment-based opt-outs), the
 * provider formats they lack, whole private-key blocks (also base64-encoded) and bodies without their
 * header lines, AWS secrets beside their key ID or alone by their shape, URL passwords, values of settings
 * named for secrets, passwords in prose and on command lines, and the given extra secrets, all on the text
 * with invisible characters dropped and NFKC applied; credentials also under up to four layers of base64,
 * hex, URL, HTML-entity or backslash encoding, and cut at a line end or across string literals. Decisions
 * rest on the text's form, never on known secret values (except the extra secrets), so hiding does not
 * confirm a guess.
 * Pass only text: deciding what is binary (and not scanning it) is the caller's job.
 */
export function createSecretFilter(options: SecretFilterOptions = {}): SecretFilter {
  const extra = secretMatcher(options.extraSecrets ?? []);
  const cache = new RedactionCache();
  let scans = 0;
  let cached = 0;

  async function detectIn(text: string): Promise<Finding[]> {
    return (await secretlintFindings(text)).concat(
      await encodedFindings(text, extra),
      formatFindings(text),
      keyMaterialFindings(text),
      pemBodyFindings(text),
      secretShapeFindings(text),
      settingFindings(text),
      spokenFindings(text),
      secretFindings(text, extra),
    );
  }

  /** Detection runs on the text as a model reads it (see normalizeForDetection); spans map back. */
  async function detect(text: string): Promise<Finding[]> {
    if (typeof text !== 'string') throw new TypeError(`expected text, got ${typeof text}`);
    scans++;
    const normalized = normalizeForDetection(text);
    if (normalized === null) return mergeFindings(await detectIn(text));
    const found = (await detectIn(normalized.text)).map((finding) => {
      const [start, end] = originalSpan(normalized, finding.start, finding.end);
      return { ...finding, start, end };
    });
    return mergeFindings(found);
  }

  async function safely<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw new ContentSafetyError(error);
    }
  }

  return {
    redact: (text) =>
      safely(async () => {
        const key = cache.key(text);
        const known = cache.get(key);
        if (known) {
          cached++;
          return known;
        }
        const redaction = applyRedaction(text, await detect(text));
        cache.set(key, redaction);
        return redaction;
      }),
    findCredentials: (text) =>
      safely(async () => {
        const kinds = (await detect(text)).filter((f) => f.credential).map((f) => f.kind);
        return [...new Set(kinds)].sort();
      }),
    stats: () => ({ scans, cached }),
  };
}
