/** The receipt after the 300 pushes of a real session (completeness.test.ts plays a short one in `npm test`). */
import { describe, it } from 'vitest';
import { playLongSession, UNTHROTTLED } from './support/long-session.js';
import { jobSuite } from './support/suite.js';

const { started } = jobSuite();

describe('the receipt, after a long session', () => {
  it('still examines each direct commit on top of 300 made through the gateway', async () => {
    await playLongSession(await started({ inputs: UNTHROTTLED }), 300);
  });
});
