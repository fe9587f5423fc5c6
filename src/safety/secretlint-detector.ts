import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { rules as recommendedRules } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretLintCoreConfig, SecretLintCoreResultMessage } from '@secretlint/types';
import { RANK, type Finding } from './finding.js';

const PREFIX = '@secretlint/secretlint-rule-';

// secretlint 11.7 marks each rule's start and end in the process-wide performance timeline and its
// observer keeps every mark forever, scanning them on each new one: scans get slower with every answer
// (secretlint/secretlint#1633, fixed in 13.x, which needs Node 22). Perimeter never profiles.
secretLintProfiler.mark = () => undefined;

/**
 * The kind shown for each secretlint rule (and message id where one rule finds several kinds).
 * A message missing here is still hidden, as 'secret'.
 */
const KINDS: Record<string, string> = {
  'aws/AWSSecretAccessKey': 'AWS secret access key',
  'aws/AWSAccessKeyID': 'AWS access key ID',
  'aws/AWSAccountID': 'AWS account ID',
  gcp: 'GCP service account key',
  privatekey: 'private key',
  'npm/PackageJSON_xOauthToken': 'GitHub token',
  npm: 'npm token',
  basicauth: 'password',
  'slack/IncomingWebhook': 'Slack webhook URL',
  slack: 'Slack token',
  sendgrid: 'SendGrid API key',
  shopify: 'Shopify token',
  github: 'GitHub token',
  openai: 'OpenAI API key',
  anthropic: 'Anthropic API key',
  linear: 'Linear API key',
  '1password': '1Password service account token',
  'database-connection-string': 'password',
};

/** Not a credential on its own: hidden in answers, but no reason to refuse a write. */
const NOT_CREDENTIALS = new Set(['AWS account ID']);

/**
 * The recommended preset's rules, minus `filter-comments`: that rule honours `secretlint-disable`
 * comments, which would let repository content switch the filter off for itself.
 * AWS key IDs are scanned too (off by default in secretlint).
 */
const CONFIG: SecretLintCoreConfig = {
  rules: recommendedRules
    .filter((rule) => rule.meta.id !== `${PREFIX}filter-comments`)
    .map((rule) => ({
      id: rule.meta.id,
      rule,
      options: rule.meta.id === `${PREFIX}aws` ? { enableIDScanRule: true } : {},
    })),
};

export const SECRETLINT_RULE_IDS: readonly string[] = CONFIG.rules.map((rule) => rule.id);

function kindOf(message: SecretLintCoreResultMessage): string {
  const rule = message.ruleId.startsWith(PREFIX) ? message.ruleId.slice(PREFIX.length) : message.ruleId;
  return KINDS[`${rule}/${message.messageId}`] ?? KINDS[rule] ?? 'secret';
}

const VALUE_FIELDS = ['KEY', 'TOKEN', 'ID', 'URI', 'URL', 'CREDENTIAL'];
const URL_USERINFO = /:\/\/([^:/\s@]*):([^@/\s]+)@/;

/**
 * Where the value is. Some rules report the start of a whole `NAME = value` match with the length
 * of the value alone, so the value named in the message's data is looked up from the reported start.
 * URLs with a password are narrowed to the password.
 */
function spanOf(text: string, message: SecretLintCoreResultMessage, kind: string): [number, number] {
  let [start, end] = message.range;
  const data = (message.data ?? {}) as Record<string, unknown>;
  const value = VALUE_FIELDS.map((field) => data[field]).find(
    (v): v is string => typeof v === 'string' && v !== '',
  );
  if (value !== undefined) {
    const at = text.indexOf(value, start);
    if (at !== -1 && at <= end) {
      start = at;
      end = at + value.length;
    }
  }
  if (kind === 'password') {
    const userinfo = URL_USERINFO.exec(text.slice(start, end));
    if (userinfo) {
      const passwordEnd = start + userinfo.index + userinfo[0].length - 1;
      return [passwordEnd - (userinfo[2] ?? '').length, passwordEnd];
    }
  }
  return [start, Math.max(end, start + 1)];
}

async function lintPart(text: string, offset: number): Promise<Finding[]> {
  const result = await lintSource({
    // named package.json so that the npm rule also looks for `TOKEN:x-oauth-basic@github.com` URLs
    source: { content: text, filePath: 'package.json', ext: '', contentType: 'text' },
    options: { config: CONFIG, noPhysicFilePath: true, locale: 'en' },
  });
  return result.messages.map((message) => {
    const kind = kindOf(message);
    const [start, end] = spanOf(text, message, kind);
    return {
      start: start + offset,
      end: end + offset,
      kind,
      credential: !NOT_CREDENTIALS.has(kind),
      rank: RANK.format,
    };
  });
}

/**
 * secretlint's time grows with the square of the findings in one text (8,000 tokens in one text took
 * 3.4 s, 16,000 about 14 s): longer texts go in overlapping parts, each found value whole in at least
 * one part (values are far shorter than the overlap; whole private-key blocks are format-rules' job).
 */
const PART = 16_384;
const OVERLAP = 4_096;

/** Runs secretlint's recommended rules over `text`. Rejects when a rule fails. */
export async function secretlintFindings(text: string): Promise<Finding[]> {
  if (text.length <= PART + OVERLAP) return lintPart(text, 0);
  const found: Finding[] = [];
  for (let at = 0; at < text.length; at += PART)
    found.push(...(await lintPart(text.slice(at, at + PART + OVERLAP), at)));
  return found;
}
