import { decodeHTML } from 'entities';
import { describe, expect, it } from 'vitest';
import {
  MAX_ANNOTATIONS,
  MAX_DESCRIPTION,
  SUMMARY_BUDGET,
  type FileDecision,
  type Verdict,
  type Violation,
} from '../../src/verify/index.js';

import { A, B, receiptOf, verdict as aVerdict } from './support/verdict.js';

/** The receipt tests' verdict: one perimeter with calls and refusals counted. */
const verdict = (overrides: Partial<Verdict> = {}): Verdict =>
  aVerdict({ perPerimeter: { impl: { calls: 7, refusals: 2 } }, ...overrides });

const file = (path: string, allowed: boolean): FileDecision => ({
  path,
  kind: 'added',
  newMode: '100644',
  allowed,
  rule: allowed ? 'impl: write glob "src/**"' : 'impl: no write glob matches',
});
const violation = (path: string): Violation => ({
  kind: 'path',
  path,
  message: `${path}: added outside every perimeter`,
});

describe('renderReceipt', () => {
  describe('when the job stayed inside', () => {
    it('posts success with the context, run URL and a count of files and commits', () => {
      const receipt = receiptOf(verdict({ files: [file('src/a.ts', true)] }), {
        runUrl: 'https://x/run/1',
      });
      expect(receipt.status).toEqual({
        state: 'success',
        context: 'perimeter',
        description: '1 changed file, all inside the perimeters; 1 commit via the gateway, 0 direct',
        targetUrl: 'https://x/run/1',
      });
      expect(receipt.annotations).toEqual([]);
      expect(receipt.summary).toContain('✅ Perimeter: success');
      expect(receipt.summary).toContain(
        '| <code>src/a.ts</code> | added | allowed | impl&#58; write glob &#34;src/&#42;&#42;&#34; |',
      );
      expect(receipt.summary).toContain('| <code>impl</code> | 7 | 2 |');
    });
    it('tells an agent that did nothing from one that did its work and changed nothing', () => {
      const idle = { files: [], commits: { ...verdict().commits, gateway: [] } };
      const described = (calls: Verdict['calls']) =>
        receiptOf(verdict({ ...idle, calls })).status.description;
      expect(described(null)).toBe('No changes during the job');
      expect(described({ answered: 0, refused: 0 })).toBe(
        'No changes during the job: the agent made no call to the gateway',
      );
      expect(described({ answered: 12, refused: 2 })).toBe(
        'No changes during the job; the gateway answered 12 calls, 2 refused',
      );
    });
    it('counts commits it could not attribute without calling them direct (the verify job reads no ledger)', () => {
      const unattributed = { gateway: [], direct: [], others: [], unattributed: [B], complete: true };
      expect(
        receiptOf(verdict({ files: [file('src/a.ts', true)], commits: unattributed })).status.description,
      ).toBe('1 changed file, all inside the perimeters; 1 commit');
    });
    it("says how many commits it judged without counting any as the gateway's when it read no ledger", () => {
      // the two-job setup: the verify job reads no ledger, so a commit the gateway made is not "0 via the gateway"
      const unattributed = { gateway: [], direct: [], others: [], unattributed: [B], complete: true };
      const summary = receiptOf(
        verdict({ files: [file('src/a.ts', true)], commits: unattributed, calls: null }),
      ).summary;
      expect(summary).not.toContain('via the gateway');
      expect(summary).not.toContain('pushed directly');
      expect(summary).toContain(
        "1 new commit, each judged by its tree (no ledger read here, so the gateway's commits are not told from direct pushes).",
      );
    });
    it('says the job staged its work instead of "no changes" when commits wait for perimeter/apply', () => {
      const idle = { files: [], commits: { ...verdict().commits, gateway: [] }, staged: 2 };
      const receipt = receiptOf(verdict({ ...idle, calls: { answered: 5, refused: 1 } }));
      expect(receipt.status.description).toBe(
        'Nothing pushed during the job: 2 commits staged for perimeter/apply; the gateway answered 5 calls, 1 refused',
      );
      expect(decodeHTML(receipt.summary)).not.toContain('No changes during the job');
      expect(decodeHTML(receipt.summary)).toContain(
        'Nothing pushed during the job: 2 commits staged for perimeter/apply',
      );
      expect(receipt.summary).toContain(
        'None pushed during the job; 2 staged for perimeter/apply, which judges them again and writes them.',
      );
    });
    it('uses a given context', () => {
      expect(receiptOf(verdict(), { context: 'perimeter/impl' }).status.context).toBe('perimeter/impl');
    });
  });

  describe('when there are violations', () => {
    it('keeps the description within 140 characters', () => {
      const long = violation(`src/${'x'.repeat(300)}`);
      const receipt = receiptOf(
        verdict({ state: 'failure', violations: [long], files: [file(long.path!, false)] }),
      );
      expect(receipt.status.state).toBe('failure');
      expect([...receipt.status.description].length).toBeLessThanOrEqual(MAX_DESCRIPTION);
      expect(receipt.status.description).toMatch(/^1 violation: src\/x+…$/);
    });
    it('annotates at most 10 errors and summarizes the rest in the last one', () => {
      const violations = Array.from({ length: 25 }, (_, i) => violation(`f${i}.txt`));
      const receipt = receiptOf(verdict({ state: 'failure', violations }));
      expect(receipt.annotations).toHaveLength(MAX_ANNOTATIONS);
      expect(receipt.annotations.slice(0, 9).map((a) => a.path)).toEqual(
        violations.slice(0, 9).map((v) => v.path),
      );
      expect(receipt.annotations[9]).toMatchObject({
        path: '',
        message: expect.stringContaining('16 more violations'),
      });
    });
    it('lists exactly 10 annotations when there are exactly 10', () => {
      const violations = Array.from({ length: 10 }, (_, i) => violation(`f${i}.txt`));
      expect(receiptOf(verdict({ state: 'failure', violations })).annotations.map((a) => a.path)).toEqual(
        violations.map((v) => v.path),
      );
    });
  });

  describe('when the violations name the commits that made them', () => {
    it('lists each violation once, with a link to each commit, how it reached the branch and who pushed it', () => {
      const made = (path: string, ...madeIn: Violation['madeIn'] & object) => ({
        ...violation(path),
        madeIn,
      });
      const receipt = receiptOf(
        verdict({
          state: 'failure',
          // B around the gateway, A attributed to no route (its ledger, say, is broken)
          commits: { gateway: [], direct: [B], others: [], unattributed: [A], complete: true },
          files: [file('docs/x.md', false), file('README.md', false)],
          violations: [
            made('docs/x.md', { sha: B, pusher: 'mallory' }),
            made('README.md', { sha: A, pusher: null }, { sha: B, pusher: 'mallory' }),
            { kind: 'ref', ref: 'refs/tags/v1', message: 'refs/tags/v1 was created during the job' },
          ],
        }),
        { repositoryUrl: 'https://github.com/octo/widgets' },
      );
      const link = (sha: string) =>
        `[<code>${sha.slice(0, 7)}</code>](https://github.com/octo/widgets/commit/${sha})`;
      const summary = receipt.summary;
      expect(summary).toContain(
        `- docs/x.md&#58; added outside every perimeter — in ${link(B)} pushed around the gateway by mallory\n`,
      );
      expect(summary).toContain(
        `- README.md&#58; added outside every perimeter — in ${link(A)} pushed by an unrecorded actor, ${link(B)} pushed around the gateway by mallory\n`,
      );
      expect(summary).toContain('- refs/tags/v1 was created during the job\n');
      // once each: the lead line counts them instead of repeating the first
      for (const message of ['docs/x.md&#58; added outside', 'README.md&#58; added outside'])
        expect(summary.split(message)).toHaveLength(2);
      expect(summary).toContain(
        '3 violations, each listed once below with the commit that made it and who pushed it.',
      );
      // the status description still leads with the first, for the pull request's checks list
      expect(receipt.status.description).toBe('3 violations: docs/x.md: added outside every perimeter');
    });
    it('names the commit without a link, and counts one violation as one, when the repository URL is not known', () => {
      const summary = receiptOf(
        verdict({
          state: 'failure',
          violations: [{ ...violation('docs/x.md'), madeIn: [{ sha: B, pusher: 'mallory' }] }],
        }),
      ).summary;
      // B is the gateway's commit in this verdict, as its ledger tells
      expect(summary).toContain('— in <code>bbbbbbb</code> pushed through the gateway by mallory');
      expect(summary).toContain(
        '\n1 violation, listed below with the commit that made it and who pushed it.\n',
      );
      expect(summary).not.toContain('](');
    });
  });

  describe('when something was not checked', () => {
    it('posts error and says what', () => {
      const receipt = receiptOf(verdict({ state: 'error', unchecked: ['the gateway ledger is missing'] }));
      expect(receipt.status).toMatchObject({
        state: 'error',
        description: 'Not fully checked: the gateway ledger is missing',
      });
      expect(receipt.summary).toContain('### Not checked');
    });
  });

  describe('when paths carry markup', () => {
    it('shows them literally: no links, no HTML, no broken table', () => {
      const path = 'src/[x](https://evil.example)|<img src=x>\n`y`';
      const receipt = receiptOf(
        verdict({ state: 'failure', files: [file(path, false)], violations: [violation(path)] }),
      );
      expect(receipt.summary).not.toContain('<img');
      expect(receipt.summary).not.toContain('](');
      expect(receipt.summary).not.toContain('https://');
      expect(receipt.summary).toContain('&#124;&#60;img src=x&#62;&#92;u000a&#96;y&#96;');
      const row = receipt.summary.split('\n').find((line) => line.startsWith('| <code>src'));
      expect(row?.split(' | ')).toHaveLength(4);
    });
  });

  describe('when thousands of files changed', () => {
    it('caps the table, shows refused files first and stays under the budget', () => {
      const files = Array.from({ length: 5000 }, (_, i) => file(`src/${'d/'.repeat(40)}${i}.ts`, i !== 4321));
      const receipt = receiptOf(verdict({ state: 'failure', files, violations: [violation('x')] }));
      expect(Buffer.byteLength(receipt.summary)).toBeLessThan(SUMMARY_BUDGET + 64 * 1024);
      expect(receipt.summary).toMatch(/… and \d+ more files \(not shown\)/);
      const rows = receipt.summary.split('\n').filter((line) => line.startsWith('| <code>src/'));
      expect(rows[0]).toContain('4321.ts');
      expect(rows.length).toBeLessThanOrEqual(1000);
    });
  });
});
