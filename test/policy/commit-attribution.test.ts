import { describe, expect, it } from 'vitest';
import {
  attributeCommit,
  defaultPerimeterSpec,
  makerOf,
  type CommitIdentityFacts,
  type PerimeterSpec,
} from '../../src/policy/index.js';

const SHA = 'abcdef0123456789abcdef0123456789abcdef01';
const user = (login: string) => ({ login, type: 'User' });
const bot = (login: string) => ({ login, type: 'Bot' });
const WEB_FLOW = user('web-flow');

/** A commit GitHub made for `author` (the web editor, the API, createCommitOnBranch): signed by web-flow. */
const madeByGitHub = (author: { login: string; type: string }): CommitIdentityFacts => ({
  sha: SHA,
  author,
  committer: WEB_FLOW,
  verified: true,
  reason: 'valid',
});

function spec(name: string, authors: string[], branches: string[] = []): PerimeterSpec {
  return { ...defaultPerimeterSpec(name), pullRequests: { authors, branches } };
}
const COPILOT = spec('copilot', ['Copilot'], ['copilot/**']);
const GATEWAY = spec('implementer', ['github-actions[bot]']);
const ALICE = spec('alice', ['alice']);

describe('makerOf', () => {
  describe('when GitHub made the commit (web-flow, verified)', () => {
    it('is the author GitHub links it to', () => {
      expect(makerOf(madeByGitHub(bot('Copilot')))).toMatchObject({ account: { login: 'Copilot' } });
    });
  });

  describe('when a verified signature is by the committer’s own key', () => {
    it('is the committer, whoever the author line names', () => {
      const facts = { ...madeByGitHub(bot('Copilot')), committer: user('alice') };
      expect(makerOf(facts)).toMatchObject({ account: { login: 'alice' } });
    });
  });

  describe('when the signature does not verify', () => {
    it.each(['unsigned', 'invalid', 'unknown_key', 'bad_email'])(
      'names no maker for %s, though the lines name web-flow and an account',
      (reason) => {
        const facts = { ...madeByGitHub(user('alice')), verified: false, reason };
        expect(makerOf(facts)).toEqual({
          account: null,
          why: `GitHub does not verify its signature (${reason})`,
        });
      },
    );

    it('names no maker when verified is true but the reason is not valid', () => {
      expect(makerOf({ ...madeByGitHub(user('alice')), reason: 'expired_key' }).account).toBeNull();
    });
  });

  describe('when GitHub links the commit to no account', () => {
    it('names no maker', () => {
      expect(makerOf({ ...madeByGitHub(user('alice')), author: null }).account).toBeNull();
      expect(makerOf({ ...madeByGitHub(user('alice')), committer: null }).account).toBeNull();
    });
  });
});

describe('attributeCommit', () => {
  const specs = [COPILOT, GATEWAY, ALICE];

  describe("when the maker is an agent a perimeter's pull-requests.authors names", () => {
    it("is judged by that perimeter, in a person's pull request too", () => {
      expect(attributeCommit(specs, madeByGitHub(bot('Copilot')), null)).toMatchObject({
        kind: 'perimeter',
        spec: { name: 'copilot' },
        by: 'made by "Copilot" (made by GitHub for it (web-flow))',
      });
      expect(attributeCommit(specs, madeByGitHub(bot('github-actions[bot]')), ALICE)).toMatchObject({
        kind: 'perimeter',
        spec: { name: 'implementer' },
      });
    });

    it('compares logins without case', () => {
      expect(attributeCommit(specs, madeByGitHub(bot('copilot')), null)).toMatchObject({
        spec: { name: 'copilot' },
      });
    });
  });

  describe('when several perimeters name the maker', () => {
    const twice = [COPILOT, spec('copilot-docs', ['Copilot'], ['docs/**'])];
    it("takes the pull request's own perimeter", () => {
      expect(attributeCommit(twice, madeByGitHub(bot('Copilot')), twice[1]!)).toMatchObject({
        spec: { name: 'copilot-docs' },
      });
    });

    it('is unattributed otherwise', () => {
      expect(attributeCommit(twice, madeByGitHub(bot('Copilot')), null)).toEqual({
        kind: 'unattributed',
        reason:
          'commit abcdef0 is made by "Copilot" (made by GitHub for it (web-flow)), and more than one perimeter names it: copilot, copilot-docs',
      });
    });
  });

  describe('when the maker is a person no perimeter names', () => {
    it('is theirs: not judged', () => {
      expect(attributeCommit(specs, madeByGitHub(user('bob')), COPILOT)).toEqual({
        kind: 'person',
        login: 'bob',
        by: 'made by "bob" (made by GitHub for it (web-flow))',
      });
    });
  });

  describe('when the maker is a bot no perimeter names', () => {
    it('is unattributed, never a person', () => {
      expect(attributeCommit([ALICE], madeByGitHub(bot('Copilot')), ALICE)).toMatchObject({
        kind: 'unattributed',
        reason: expect.stringContaining("a Bot account no perimeter's"),
      });
    });
  });

  describe('when GitHub vouches for no maker (a forged committer line, say)', () => {
    const forged = { ...madeByGitHub(user('bob')), verified: false, reason: 'invalid' };

    it("is judged by the pull request's perimeter, not passed as the person's", () => {
      expect(attributeCommit(specs, forged, COPILOT)).toMatchObject({
        kind: 'perimeter',
        spec: { name: 'copilot' },
        by: expect.stringContaining('no maker GitHub vouches for'),
      });
    });

    it('is unattributed without one', () => {
      expect(attributeCommit(specs, forged, null)).toEqual({
        kind: 'unattributed',
        reason:
          'commit abcdef0 cannot be attributed: GitHub does not verify its signature (invalid), and no perimeter is assigned to the pull request',
      });
    });
  });
});
