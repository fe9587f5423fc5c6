import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { perimeterAction, workflowWarnings } from '../../src/cli/workflows.js';

const warnings = (text: string) => workflowWarnings('w.yml', parse(text));
const job = (on: string, steps: string[], extra = '') =>
  [`on: ${on}`, 'jobs:', '  agent:', '    runs-on: ubuntu-latest', extra, '    steps:', ...steps, '']
    .filter((line) => line !== '')
    .join('\n');
const AGENT = ['      - uses: octo/perimeter@v1', '      - run: claude -p "$TASK"'];

describe('perimeterAction', () => {
  it.each([
    ['octo/perimeter@v1', 'agent'],
    ['octo/Perimeter@0123456789abcdef0123456789abcdef01234567', 'agent'],
    ['./.perimeter', 'agent'],
    ['octo/perimeter/verify@v1', 'verify'],
    ['./.perimeter/verify', 'verify'],
    ['octo/perimeter/apply@v1', 'apply'],
    ['octo/perimeter-tools@v1', null],
    ['octo/perimeter/other@v1', null],
    ['octo/other/perimeter@v1', 'agent'],
    ['octo/other/verify@v1', null],
    ['actions/checkout@v5', null],
    ['docker://perimeter', null],
  ])('%s is %s', (uses, action) => {
    expect(perimeterAction(uses)).toBe(action);
  });
});

describe('workflowWarnings', () => {
  describe('when a job starts an agent on an event outsiders can start', () => {
    it('warns, naming the job and the events', () => {
      expect(warnings(job('[issue_comment, issues, push]', AGENT))).toEqual([
        { file: 'w.yml', job: 'agent', events: ['issue_comment', 'issues'] },
      ]);
    });

    it('warns for an agent on pull_request_target that checks out the pull request head', () => {
      const steps = [
        '      - uses: actions/checkout@v7',
        '        with:',
        '          ref: ${{ github.event.pull_request.head.sha }}',
        '          allow-unsafe-pr-checkout: true',
        '          persist-credentials: false',
        ...AGENT,
      ];
      expect(warnings(job('{ pull_request_target: { types: [opened] } }', steps))).toEqual([
        { file: 'w.yml', job: 'agent', events: ['pull_request_target'] },
      ]);
    });

    it.each(['pull_request', 'pull_request_review_comment', 'discussion_comment'])('warns on %s', (on) => {
      expect(warnings(job(on, AGENT))).toHaveLength(1);
    });
  });

  describe('when the job on such an event starts no agent', () => {
    it.each([
      ['the pull-request gate', ['      - uses: octo/perimeter/verify@v1']],
      ['a verify job', ['      - uses: octo/perimeter/verify@v1', '        with: { agent-job: implement }']],
      ['an apply job', ['      - uses: octo/perimeter/apply@v1']],
      ['a job without Perimeter', ['      - run: echo']],
    ])('does not warn for %s', (_, steps) => {
      expect(warnings(job('pull_request_target', steps))).toEqual([]);
    });
  });

  describe("when the job's if: admits only people who may push", () => {
    const readme = [
      '    if: >-',
      "      !github.event.issue.pull_request && startsWith(github.event.comment.body, '/implement ') &&",
      `      contains(fromJSON('["OWNER", "MEMBER", "COLLABORATOR"]'), github.event.comment.author_association)`,
    ].join('\n');

    it("does not warn for README's issue-comment guard", () => {
      expect(warnings(job('issue_comment', AGENT, readme))).toEqual([]);
    });

    it.each([
      "${{ github.event.comment.author_association == 'OWNER' }}",
      "'MEMBER' == github.event.comment.author_association",
      `(contains(fromJSON('["OWNER"]'), github.event.comment.author_association)) && true`,
      `(startsWith(github.event.comment.body, '/go') || true) && github.event.comment.author_association == 'OWNER'`,
    ])('does not warn for %s', (condition) => {
      expect(warnings(job('issue_comment', AGENT, `    if: ${JSON.stringify(condition)}`))).toEqual([]);
    });

    it('still warns for the events the guard does not cover', () => {
      expect(warnings(job('[issue_comment, issues]', AGENT, readme))).toEqual([
        { file: 'w.yml', job: 'agent', events: ['issues'] },
      ]);
    });
  });

  describe("when the job's if: lets others through", () => {
    it.each([
      [
        'an || around the guard',
        `contains(fromJSON('["OWNER"]'), github.event.comment.author_association) || true`,
      ],
      [
        'an association anyone can have',
        `contains(fromJSON('["OWNER", "CONTRIBUTOR"]'), github.event.comment.author_association)`,
      ],
      ['an empty list', `contains(fromJSON('[]'), github.event.comment.author_association)`],
      ["another item's author", `contains(fromJSON('["OWNER"]'), github.event.issue.author_association)`],
      ['a negated guard', `!contains(fromJSON('["OWNER"]'), github.event.comment.author_association)`],
      [
        'a guard inside a string',
        `startsWith('a && github.event.comment.author_association == ''OWNER''', 'a')`,
      ],
      ['a guard inside an ||', `(github.event.comment.author_association == 'OWNER' || true) && true`],
      ['an inequality', "github.event.comment.author_association != 'OWNER'"],
    ])('warns for %s', (_, condition) => {
      expect(warnings(job('issue_comment', AGENT, `    if: ${JSON.stringify(condition)}`))).toHaveLength(1);
    });

    it.each(['pull_request_target', 'pull_request'])(
      'warns on %s, where trust also judges the sender',
      (on) => {
        const guard = `    if: "github.event.pull_request.author_association == 'OWNER'"`;
        expect(warnings(job(on, AGENT, guard))).toHaveLength(1);
      },
    );
  });
});
