// The stand-in's public entry: everything bench/, scripts/ and the project's tests may use. The rest of src/
// is its own.
export { startFakeGithub } from './server.js';
export { writeRequests } from './stats.js';
export type { ActionsJob, FakeGithub, FakeGithubOptions, FakeStats } from './server.js';
export type { AppToken } from './apps.js';
export type { Fault, FaultRoute } from './faults.js';
export type { JobConclusion, JobRecord, JobStart, StepRecord } from './actions/actions-jobs.js';
export { commitToBare, seedRepo, SEED_ACTOR } from './seed.js';
export { git, gitText, GitError, ZERO_SHA, type GitRunOptions } from './git/git.js';
export { activityPath, readRefChanges, recordRefChange, type RefChange } from './activity-log.js';
