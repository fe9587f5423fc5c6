export { startFakeGithub } from './server.js';
export type { FakeGithub, FakeGithubOptions, FakeStats } from './server.js';
export type { Fault, FaultRoute } from './faults.js';
export { commitToBare, seedRepo, SEED_ACTOR } from './seed.js';
