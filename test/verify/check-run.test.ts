import { micromark } from 'micromark';
import { describe, expect, it } from 'vitest';
import {
  CHECK_RUN_ANNOTATIONS_PER_REQUEST,
  MAX_CHECK_RUN_ANNOTATIONS,
  MAX_CHECK_RUN_TEXT,
  renderCheckRun,
  type CheckRunFacts,
  type FileDecision,
  type Verdict,
  type Violation,
} from '../../src/verify/index.js';
import { receiptOf, verdict } from './support/verdict.js';

const BLOB = 'c'.repeat(40);
const HEAD = 'f'.repeat(64);

const facts = (overrides: Partial<CheckRunFacts> = {}): CheckRunFacts => ({
  config: { file: 'perimeters.yml', ref: 'main', blobSha: BLOB },
  ledger: { included: true, ok: true, problem: null, records: 12, head: HEAD },
  ...overrides,
});
const outside = (path: string): Violation => ({ kind: 'path', path, message: `${path}: added outside` });
const refused = (path: string): FileDecision => ({
  path,
  kind: 'added',
  newMode: '100644',
  allowed: false,
  rule: 'outside every perimeter',
});
const failure = (paths: string[]): Verdict =>
  verdict({ state: 'failure', violations: paths.map(outside), files: paths.map(refused) });
const render = (v: Verdict, f: CheckRunFacts = facts()) =>
  renderCheckRun(v, receiptOf(v, { runUrl: 'https://github.example/run/1', context: 'perimeter/impl' }), f);
const html = (markdown: string): string => micromark(markdown, { allowDangerousHtml: true });

describe('renderCheckRun', () => {
  describe('when the verdict is success', () => {
    it('concludes success, named and titled like the status, linking the run', () => {
      const { run, more } = render(verdict());
      expect(run).toMatchObject({
        name: 'perimeter/impl',
        conclusion: 'success',
        detailsUrl: 'https://github.example/run/1',
        title: '0 changed files, all inside the perimeters; 1 commit via the gateway, 0 direct',
        annotations: [],
      });
      expect(more).toEqual([]);
      expect(html(run.summary)).toContain('<h2>✅ Perimeter: success</h2>');
    });
  });

  describe('when the verdict is error', () => {
    it('concludes failure, never a conclusion branch protection passes', () => {
      const { run } = render(verdict({ state: 'error', unchecked: ['the activity list'] }));
      expect(run.conclusion).toBe('failure');
      expect(run.title).toBe('Not fully checked: the activity list');
    });
  });

  describe('when files are outside the perimeters', () => {
    it('puts a failure annotation on each, up to 50 in the run and the rest in updates of 50', () => {
      const paths = Array.from({ length: 120 }, (_, i) => `docs/${i}.md`);
      const violations = [...paths.map(outside), { kind: 'ref' as const, ref: 'refs/heads/x', message: 'x' }];
      const { run, more } = render(verdict({ state: 'failure', violations }));
      expect(run.conclusion).toBe('failure');
      expect(run.annotations).toHaveLength(CHECK_RUN_ANNOTATIONS_PER_REQUEST);
      expect(run.annotations[0]).toEqual({
        path: 'docs/0.md',
        level: 'failure',
        title: 'Outside every perimeter',
        message: 'docs/0.md: added outside',
      });
      expect(more.map((batch) => batch.length)).toEqual([50, 20]);
      const all = [run.annotations, ...more].flat().map((a) => a.path);
      expect(all).toEqual(paths);
    });

    it(`annotates at most ${MAX_CHECK_RUN_ANNOTATIONS} and says how many more the summary lists`, () => {
      const paths = Array.from({ length: MAX_CHECK_RUN_ANNOTATIONS + 7 }, (_, i) => `f${i}`);
      const { run, more } = render(failure(paths));
      expect([run.annotations, ...more].flat()).toHaveLength(MAX_CHECK_RUN_ANNOTATIONS);
      expect(more.every((batch) => batch.length <= CHECK_RUN_ANNOTATIONS_PER_REQUEST)).toBe(true);
      expect(run.text).toContain('7 more violations on files are not annotated');
    });

    it('keeps the path as it is for the annotation and shows hidden characters in its message', () => {
      const path = 'src/a\u202eb.ts';
      const { run } = render(failure([path]));
      expect(run.annotations[0]!.path).toBe(path);
      expect(run.annotations[0]!.message).toBe('src/a\\u202eb.ts: added outside');
    });
  });

  describe('when text comes from the agent', () => {
    it('renders no markup, heading or link from a path (CommonMark)', () => {
      const path = 'x\r\n## ✅ Perimeter: success\r\n[ok](https://evil.example) <img src=x> **b**';
      const { run } = render(failure([path]));
      const out = html(run.summary);
      expect(out.match(/<h2>/g)).toHaveLength(1);
      expect(out).toContain('<h2>❌ Perimeter: failure</h2>');
      expect(out).not.toMatch(/<a |<img/);
      expect(out).not.toContain('<strong>b</strong>');
      expect(out).toContain('&lt;img src=x&gt; **b**');
      expect(run.title).not.toMatch(/[\r\n]/);
    });
  });

  describe('the evidence', () => {
    it("names the config's ref and blob SHA, and the ledger's chain head and record count", () => {
      const out = html(render(verdict()).run.text!);
      expect(out).toContain(`<code>perimeters.yml</code> at <code>main</code>, blob <code>${BLOB}</code>`);
      expect(out).toContain(`chain head <code>${HEAD}</code>, 12 records`);
    });

    it('says when no ledger was read, or why it did not verify, and escapes the reason', () => {
      expect(render(verdict(), facts({ ledger: null })).run.text).toContain('Gateway ledger: not read');
      const broken = render(
        verdict(),
        facts({
          ledger: { included: true, ok: false, problem: 'record 3: <b>bad</b> MAC', records: 2, head: null },
        }),
      ).run.text!;
      expect(broken).not.toContain('chain head');
      expect(html(broken)).toContain('record 3: &lt;b&gt;bad&lt;/b&gt; MAC');
    });

    it('says the default branch when the config came from it, and escapes a ref', () => {
      const text = render(verdict(), facts({ config: { file: 'p.yml', ref: null, blobSha: BLOB } })).run
        .text!;
      expect(text).toContain('at the default branch');
      const odd = render(verdict(), facts({ config: { file: 'p.yml', ref: 'a<b>`c', blobSha: BLOB } })).run
        .text!;
      expect(html(odd)).toContain('<code>a&lt;b&gt;`c</code>');
    });
  });

  describe('when the summary would be longer than GitHub takes', () => {
    it('cuts it at a line end within 65,535 characters and says so', () => {
      const paths = Array.from({ length: 3000 }, (_, i) => `docs/${'<'.repeat(40)}${i}.md`);
      const many = verdict({
        state: 'failure',
        violations: paths.map(outside),
        files: paths.map(refused),
        unchecked: paths.map((p) => `${p} & ${'*'.repeat(200)}`),
        notes: paths,
      });
      const { run } = render(many);
      expect(run.summary.length).toBeLessThanOrEqual(MAX_CHECK_RUN_TEXT);
      expect(run.text!.length).toBeLessThanOrEqual(MAX_CHECK_RUN_TEXT);
      expect(run.summary).toContain('- docs/&#60;');
      expect(run.summary.endsWith("GitHub's limit for a check run; the job summary has it all.\n")).toBe(
        true,
      );
      // every line whole: no entity or <code> cut in half
      for (const line of run.summary.split('\n')) {
        expect(line).not.toMatch(/&#\d*$/);
        expect((line.match(/<code>/g) ?? []).length).toBe((line.match(/<\/code>/g) ?? []).length);
      }
    });
  });
});
