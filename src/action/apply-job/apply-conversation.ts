/**
 * The staged conversation requests (writes: stage), sent by the apply job after it has judged the commits:
 * each judged again by the same code the gateway runs (src/gateway/conversation), with its perimeter's rule
 * from the trusted config, the thread from this job's own event payload and the text prepared here. A
 * comment carries apply's own line saying what became of the commits; a pull request is opened or updated
 * only when the commits reached the bound branch.
 */
import * as core from '@actions/core';
import type { ApplyVerdict } from '../../apply/apply-changes.js';
import type { StagedChangeSet, Upstream } from '../../github/index.js';
import { Conversation } from '../../gateway/conversation/conversation.js';
import { createSecretFilter } from '../../safety/index.js';
import { inlineText } from '../../verify/index.js';
import { triggerThread } from '../agent-job/trigger-thread.js';
import type { ApplySettings } from './apply-inputs.js';

const TOOL = { pull_request: 'open_pull_request', comment: 'add_comment' } as const;

/** Sends what may be sent; lists every request's fate in the log and the job summary. */
export async function converse(
  upstream: Upstream,
  settings: ApplySettings,
  set: StagedChangeSet,
  outcome: ApplyVerdict,
): Promise<void> {
  const requests = set.conversation ?? [];
  if (requests.length === 0) return;
  const conversation = new Conversation(
    upstream,
    {
      repository: `${settings.owner}/${settings.repo}`,
      branch: settings.branch,
      thread: triggerThread(settings.eventName, settings.event),
      receiptUrl: settings.runUrl ?? null,
      statusContext: settings.statusContext,
      record: settings.record || null,
    },
    createSecretFilter({ extraSecrets: [settings.token, settings.reviewToken ?? ''].filter(Boolean) }),
  );
  const note = `<sub>Perimeter apply: ${inlineText(outcome.description)}</sub>`;
  const fates: string[] = [];
  for (const request of requests) {
    const what = request.kind === 'pull_request' ? 'the pull request' : `a comment on ${request.thread}`;
    const perimeter = outcome.perimeters?.find((p) => p.name === request.perimeter);
    try {
      if (perimeter === undefined || !perimeter.tools.has(TOOL[request.kind]))
        throw new Error(
          `perimeter "${request.perimeter}" is not one this job judges with ${TOOL[request.kind]} granted`,
        );
      if (request.kind === 'pull_request') {
        if (!outcome.applied) throw new Error(`the commits did not reach ${settings.branch}`);
        const done = await conversation.openOrUpdate(perimeter, request);
        fates.push(`${request.perimeter}: ${done.action} pull request #${done.number}`);
      } else {
        const done = await conversation.comment(perimeter, request.thread, request.body, note);
        fates.push(`${request.perimeter}: commented on #${done.number}`);
      }
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      core.warning(`${what} (perimeter ${request.perimeter}) not sent: ${why}`, {
        title: 'Perimeter: conversation request refused',
      });
      fates.push(`${request.perimeter}: ${what} not sent: ${why}`);
    }
  }
  core.info(`conversation requests:\n${fates.map((f) => `  ${f}`).join('\n')}`);
  await core.summary
    .addHeading('Conversation requests', 3)
    .addList(fates.map((f) => inlineText(f)))
    .write();
}
