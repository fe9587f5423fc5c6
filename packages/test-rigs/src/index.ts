// The shared test rigs' public entry: the runner emulation, the one-job rig, the stand-ins over the fake
// GitHub, the gateway harness and the verifier's model histories.
export { AttemptClock } from './attempt-clock.js';
export { actionDir } from './bundles.js';
export { LONG, runs } from './runs.js';
export {
  ActionRunner,
  parseCommandFile,
  parseStdout,
  REPO_ROOT,
  runnerNode,
  type Annotation,
  type RunnerOptions,
  type StepResult,
} from './runner.js';
export { RUN_ID, TwoJobs } from './two-jobs.js';
export {
  git,
  Job,
  REPOSITORY,
  text,
  type CheckRunRecord,
  type JobOptions,
  type StatusRecord,
} from './job.js';
export { FILES, PERIMETERS_YML } from './sample-repo.js';
export { compiledPerimeter, perimeterSpec } from './perimeter-spec.js';
export {
  plumbCommit,
  setRef,
  startStandIn,
  TOKEN,
  windowOpens,
  type Entry,
  type StandIn,
} from './stand-in.js';
export {
  answerOf,
  call,
  fakeToken,
  ok,
  OWNER,
  REPO,
  startHarness,
  textOf,
  type Harness,
  type HarnessOptions,
} from './gateway-harness.js';
export { histories, modelStandIn, play, type History, type Op, type Outcome } from './model-histories.js';
export { fill, pemBodies, pemBody, privateKeyBlock, providerSamples, sample } from './secret-samples.js';
export {
  LAYERS,
  secretEncodings,
  WRAPPERS,
  type LayerName,
  type SecretEncoding,
  type Written,
} from './secret-encodings.js';
export { memoryRoute, processUid, READ_MEMORY, type MemoryRoute } from './process-memory.js';
export {
  createRunnerUser,
  DOCKER_GROUP,
  DOCKER_SOCKET,
  downloadAction,
  freshRunner,
  removeRunnerUser,
  RUNNER_USER,
  runnerUserMissing,
} from './runner-user.js';
