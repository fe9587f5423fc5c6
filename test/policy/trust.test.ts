import { describe, expect, it } from 'vitest';
import { judgeTrigger, type TrustRule } from '../../src/policy/index.js';

const RULE: TrustRule = { associations: ['OWNER', 'MEMBER', 'COLLABORATOR'], users: ['renovate[bot]'] };

const comment = (login: string, association: string) => ({
  comment: { user: { login }, author_association: association, body: '@agent fix it' },
  issue: { user: { login: 'someone' }, author_association: 'NONE' },
  sender: { login },
});

describe('judgeTrigger', () => {
  describe('when a comment triggers the run', () => {
    it('trusts an author whose association is listed', () => {
      expect(judgeTrigger(RULE, 'issue_comment', comment('alice', 'MEMBER'))).toEqual({
        trusted: true,
        reason: 'comment author "alice" is MEMBER',
      });
    });
    it('does not trust anyone else, and says why', () => {
      expect(judgeTrigger(RULE, 'issue_comment', comment('mallory', 'NONE'))).toEqual({
        trusted: false,
        reason: 'comment author "mallory" is NONE, not OWNER, MEMBER, COLLABORATOR',
      });
      expect(judgeTrigger(RULE, 'issue_comment', comment('mallory', 'CONTRIBUTOR')).trusted).toBe(false);
    });
    it('trusts a listed user whatever the association', () => {
      expect(judgeTrigger(RULE, 'issue_comment', comment('Renovate[bot]', 'NONE'))).toEqual({
        trusted: true,
        reason: 'comment author "Renovate[bot]" is in trust.users',
      });
    });
  });

  describe('when an issue or a pull request triggers the run', () => {
    it('judges its author', () => {
      const issue = {
        issue: { user: { login: 'eve' }, author_association: 'FIRST_TIMER' },
        sender: { login: 'eve' },
      };
      expect(judgeTrigger(RULE, 'issues', issue).trusted).toBe(false);
      const pr = {
        pull_request: { user: { login: 'bob' }, author_association: 'COLLABORATOR' },
        sender: { login: 'bob' },
      };
      expect(judgeTrigger(RULE, 'pull_request_target', pr)).toEqual({
        trusted: true,
        reason: 'pull request author "bob" is COLLABORATOR',
      });
    });
    it('does not trust a pull request someone else pushed to', () => {
      const pr = {
        pull_request: { user: { login: 'bob' }, author_association: 'MEMBER' },
        sender: { login: 'mallory' },
      };
      expect(judgeTrigger(RULE, 'pull_request_target', pr)).toEqual({
        trusted: false,
        reason:
          'pull request author "bob" is MEMBER, but the sender "mallory" (who pushed or acted) is someone else and not in trust.users',
      });
    });
    it('does not trust a payload without an association', () => {
      expect(judgeTrigger(RULE, 'issues', { sender: { login: 'x' } }).trusted).toBe(false);
      expect(judgeTrigger(RULE, 'issues', null).trusted).toBe(false);
    });
  });

  describe('when only writers can start the event', () => {
    it.each(['push', 'workflow_dispatch', 'schedule', 'repository_dispatch', 'merge_group'])(
      'trusts %s',
      (event) => {
        expect(judgeTrigger(RULE, event, {}).trusted).toBe(true);
      },
    );
  });

  describe('when the event carries no author', () => {
    it('trusts only a sender in trust.users', () => {
      expect(judgeTrigger(RULE, 'workflow_run', { sender: { login: 'mallory' } })).toEqual({
        trusted: false,
        reason:
          'workflow_run events carry no author association, and the sender "mallory" is not in trust.users',
      });
      expect(judgeTrigger(RULE, 'workflow_run', { sender: { login: 'renovate[bot]' } }).trusted).toBe(true);
    });
  });
});
