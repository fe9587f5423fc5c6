import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { SECRETLINT_RULE_IDS, secretlintFindings } from '../../src/safety/secretlint-detector.js';
import { fill, providerSamples, sample } from '@perimeter/test-rigs';

/** Kinds that secretlint's recommended rules recognise themselves (the rest are Perimeter's additions). */
const SECRETLINT_KINDS = new Set([
  'GitHub token',
  'AWS access key ID',
  'Slack token',
  'Slack webhook URL',
  'npm token',
  'SendGrid API key',
  'Shopify token',
  'OpenAI API key',
  'Anthropic API key',
  'Linear API key',
  '1Password service account token',
  'private key',
]);

describe('secretlintFindings', () => {
  it('leaves no performance marks behind (secretlint 11.7 profiles every scan and keeps the marks forever)', async () => {
    const before = performance.getEntriesByType('mark').length;
    await secretlintFindings(`token: ${sample.github('marks')}\n`);
    await secretlintFindings('nothing to see\n');
    expect(performance.getEntriesByType('mark').length).toBe(before);
  });

  it('runs the recommended rules except the comment filter', () => {
    expect(SECRETLINT_RULE_IDS).toContain('@secretlint/secretlint-rule-github');
    expect(SECRETLINT_RULE_IDS.length).toBeGreaterThanOrEqual(13);
    expect(SECRETLINT_RULE_IDS).not.toContain('@secretlint/secretlint-rule-filter-comments');
  });

  describe.each(providerSamples().filter(({ kind }) => SECRETLINT_KINDS.has(kind)))(
    'when the text holds a $kind',
    ({ kind, value }) => {
      it('reports the exact span of the value', async () => {
        const text = `prefix ${value} suffix`;
        const findings = await secretlintFindings(text);
        expect(findings.map((f) => f.kind)).toContain(kind);
        const finding = findings.find((f) => f.kind === kind);
        expect(text.slice(finding?.start, finding?.end)).toBe(value);
      });
    },
  );

  it('points at the value, not at the name, where secretlint reports the name', async () => {
    const secret = sample.awsSecret();
    const text = `aws_secret_access_key = "${secret}"`;
    const [finding] = await secretlintFindings(text);
    expect(finding?.kind).toBe('AWS secret access key');
    expect(text.slice(finding?.start, finding?.end)).toBe(secret);
  });

  it('narrows a basic-auth URL to its password', async () => {
    const password = `Fake${fill('basic', 14)}`;
    const text = `https://deploy:${password}@git.internal.test/x`;
    const findings = await secretlintFindings(text);
    expect(findings.map((f) => text.slice(f.start, f.end))).toEqual([password]);
  });
});
