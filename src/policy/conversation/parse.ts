/** perimeters.yml `conversation`, checked with file:line:column problems like the rest of the file. */
import { branchGlobProblem } from '../glob.js';
import { booleanValue, join, positiveInteger, type Checker, type Entry } from '../yaml-checker.js';
import {
  CONVERSATION_DEFAULTS,
  handleProblem,
  labelProblem,
  MAX_COMMENTS_PER_RUN,
  type ConversationRule,
} from './rules.js';

const KEYS = ['bases', 'draft-only', 'labels', 'comments', 'comments-per-run', 'mentions'] as const;

export function parseConversation(c: Checker, entry: Entry, where: string): ConversationRule | null {
  const key = join(where, 'conversation');
  if (!c.expectMap(entry.value, entry.keyNode, key)) return null;
  const rule: ConversationRule = { ...CONVERSATION_DEFAULTS, labels: [], mentions: [] };
  let ok = true;
  const take = <T>(value: T | null, set: (value: T) => void): void => {
    if (value === null) ok = false;
    else set(value);
  };
  for (const item of c.entries(entry.value, key)) {
    const at = join(key, item.key);
    if (item.key === 'bases') {
      const bases = c.stringList(item, key, branchGlobProblem);
      if (bases !== null && bases.length === 0) {
        c.report(item.value, at, 'empty list; omit the key to allow the default branch only');
        ok = false;
      } else take(bases, (v) => (rule.bases = v));
    } else if (item.key === 'labels') take(c.stringList(item, key, labelProblem), (v) => (rule.labels = v));
    else if (item.key === 'mentions')
      take(c.stringList(item, key, handleProblem), (v) => (rule.mentions = v));
    else if (item.key === 'draft-only') take(booleanValue(c, item, at), (v) => (rule.draftOnly = v));
    else if (item.key === 'comments') take(booleanValue(c, item, at), (v) => (rule.comments = v));
    else if (item.key === 'comments-per-run')
      take(positiveInteger(c, item, at, MAX_COMMENTS_PER_RUN), (v) => (rule.commentsPerRun = v));
    else {
      c.report(item.keyNode, at, `unknown key; expected one of ${KEYS.join(', ')}`);
      ok = false;
    }
  }
  return ok ? rule : null;
}
