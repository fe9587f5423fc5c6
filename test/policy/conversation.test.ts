import { describe, expect, it } from 'vitest';
import {
  commentProblem,
  compilePerimeter,
  defaultPerimeterSpec,
  ConfigError,
  CONVERSATION_DEFAULTS,
  massMentionProblem,
  mentionsIn,
  parseConfig,
  pullRequestProblem,
  type ConversationRule,
} from '../../src/policy/index.js';

const yaml = (
  conversation: string,
  tools = '[get_file, open_pull_request, add_comment]',
): string => `version: 1
perimeters:
  implementer:
    tools: ${tools}
    read: ["src/**"]
    write: ["src/**"]
    conversation:
${conversation}
`;

function problems(text: string): string[] {
  try {
    parseConfig(text);
  } catch (error) {
    if (error instanceof ConfigError)
      return error.problems.map((p) => `${p.line}:${p.column} ${p.key}: ${p.message}`);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const rule = (over: Partial<ConversationRule> = {}): ConversationRule => ({
  ...CONVERSATION_DEFAULTS,
  ...over,
});

describe('perimeters.yml conversation', () => {
  it('reads every key', () => {
    const config = parseConfig(
      yaml(`      bases: [main, "release/**"]
      draft-only: false
      labels: [agent, needs-review]
      comments: true
      comments-per-run: 3
      mentions: [octocat, my-org/reviewers]`),
    );
    expect(config.perimeters[0]!.conversation).toEqual({
      bases: ['main', 'release/**'],
      draftOnly: false,
      labels: ['agent', 'needs-review'],
      comments: true,
      commentsPerRun: 3,
      mentions: ['octocat', 'my-org/reviewers'],
    });
    expect(config.perimeters[0]!.tools).toEqual(['get_file', 'open_pull_request', 'add_comment']);
  });

  it('leaves the defaults for what it does not say: the default branch, drafts only, no labels, 5 comments', () => {
    const config = parseConfig(yaml('      comments: false'));
    expect(config.perimeters[0]!.conversation).toEqual({ ...CONVERSATION_DEFAULTS, comments: false });
    expect(CONVERSATION_DEFAULTS).toEqual({
      bases: null,
      draftOnly: true,
      labels: [],
      comments: true,
      commentsPerRun: 5,
      mentions: [],
    });
  });

  it('does not grant the conversation tools to a perimeter without a tools list', () => {
    const config = parseConfig('version: 1\nperimeters:\n  implementer:\n    read: ["**"]\n');
    expect(config.perimeters[0]!.tools).not.toContain('open_pull_request');
    expect(config.perimeters[0]!.tools).not.toContain('add_comment');
    expect(config.perimeters[0]!.tools).not.toContain('read_thread');
  });

  it('reports every mistake with its position and the key', () => {
    expect(
      problems(
        yaml(`      bases: []
      draft-only: "yes"
      labels: [" padded"]
      comments-per-run: 500
      mentions: ["@octocat"]
      reviewers: [a]`),
      ),
    ).toEqual([
      '8:14 perimeters.implementer.conversation.bases: empty list; omit the key to allow the default branch only',
      '9:19 perimeters.implementer.conversation.draft-only: expected true or false, got string "yes"',
      '10:16 perimeters.implementer.conversation.labels[0]: " padded": a label name has no leading or trailing space',
      '11:25 perimeters.implementer.conversation.comments-per-run: 500 is above the maximum of 50',
      '12:18 perimeters.implementer.conversation.mentions[0]: "@octocat": not a GitHub login or team (e.g. "octocat" or "my-org/reviewers")',
      '13:7 perimeters.implementer.conversation.reviewers: unknown key; expected one of bases, draft-only, labels, comments, comments-per-run, mentions',
    ]);
  });

  it('refuses an unknown conversation tool name like any unknown tool', () => {
    expect(problems(yaml('      comments: true', '[open_pr]'))[0]).toContain('"open_pr": unknown tool');
  });
});

describe('pullRequestProblem', () => {
  it('allows the default branch only, by default, and names the rule otherwise', () => {
    expect(pullRequestProblem(rule(), { base: 'main', draft: true, labels: [] }, 'main')).toBeNull();
    expect(pullRequestProblem(rule(), { base: 'release', draft: true, labels: [] }, 'main')).toBe(
      'base "release" is not one this perimeter\'s pull requests may target (rule: conversation.bases: the default branch "main" only)',
    );
  });

  it('reads bases as branch globs', () => {
    const r = rule({ bases: ['release/**'] });
    expect(pullRequestProblem(r, { base: 'release/1.2', draft: true, labels: [] }, 'main')).toBeNull();
    expect(pullRequestProblem(r, { base: 'main', draft: true, labels: [] }, 'main')).toContain(
      'conversation.bases: "release/**"',
    );
  });

  it('refuses a ready pull request when drafts only are allowed', () => {
    expect(pullRequestProblem(rule(), { base: 'main', draft: false, labels: [] }, 'main')).toContain(
      'rule: conversation.draft-only',
    );
    expect(
      pullRequestProblem(rule({ draftOnly: false }), { base: 'main', draft: false, labels: [] }, 'main'),
    ).toBeNull();
  });

  it('refuses a label the rule does not list', () => {
    const r = rule({ labels: ['agent'] });
    expect(pullRequestProblem(r, { base: 'main', draft: true, labels: ['agent'] }, 'main')).toBeNull();
    expect(pullRequestProblem(r, { base: 'main', draft: true, labels: ['agent', 'urgent'] }, 'main')).toBe(
      'label "urgent" is not listed (rule: conversation.labels: "agent")',
    );
  });
});

describe('commentProblem', () => {
  it('counts comments against the cap and honours comments: false', () => {
    expect(commentProblem(rule({ commentsPerRun: 2 }), 1)).toBeNull();
    expect(commentProblem(rule({ commentsPerRun: 2 }), 2)).toBe(
      'comment cap reached: 2 of 2 comments posted in this job (rule: conversation.comments-per-run)',
    );
    expect(commentProblem(rule({ comments: false }), 0)).toContain('rule: conversation.comments: false');
  });
});

describe('mentions', () => {
  it('finds users and teams as GitHub does, not e-mail addresses or code', () => {
    expect(mentionsIn('thanks @octocat and @my-org/reviewers, cc @OctoCat; mail a@b.example; `@x`')).toEqual([
      'octocat',
      'my-org/reviewers',
    ]);
  });

  it('calls more than ten distinct mentions a mass mention', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `@user${i}`).join(' ');
    expect(massMentionProblem(ten)).toBeNull();
    expect(massMentionProblem(`${ten} @user10`)).toContain('mass mention: 11 people or teams mentioned');
  });
});

describe('compilePerimeter with a conversation rule it did not read', () => {
  it('refuses what perimeters.yml would have refused', () => {
    const spec = {
      ...defaultPerimeterSpec('p'),
      conversation: rule({ commentsPerRun: 0, labels: [' x'], mentions: ['@a'] }),
    };
    expect(() => compilePerimeter(spec)).toThrow(
      /conversation\.labels: " x": .*; conversation\.mentions: "@a": .*; conversation\.comments-per-run: expected 1 to 50, got 0/,
    );
  });
});
