export { validatePath, type PathCheck } from './path.js';
export {
  DEFAULT_TOOLS,
  isToolName,
  servesContent,
  TOOL_CATALOGUE,
  TOOL_NAMES,
  toolNature,
  type ToolName,
  type ToolNature,
} from './tools.js';
export {
  DEFAULT_LIMITS,
  defaultPerimeterSpec,
  type Config,
  type Limits,
  type PerimeterSpec,
  type PullRequestRule,
} from './spec.js';
export {
  assignPullRequest,
  pullRequestMatch,
  type Assignment,
  type PullRequestFacts,
} from './pull-requests/rules.js';
export {
  attributeCommit,
  makerOf,
  WEB_FLOW_LOGIN,
  type Attribution,
  type CommitIdentityFacts,
  type LinkedAccount,
  type Maker,
} from './pull-requests/commit-attribution.js';
export { ConfigError, type ConfigProblem } from './config-error.js';
export { parseConfig } from './config.js';
export { compilePerimeter, PerimeterSpecError, type Decision, type Perimeter } from './perimeter.js';
export { runsOnPushRule, withReview } from './review.js';
export { MAX_SCOPE_REASON, MAX_SCOPE_REQUESTS, proposeScope, scopeRequestProblem } from './scope.js';
export { protectedRule, PROTECTED_ENTRIES } from './protected.js';
export { credentialFileRule, CREDENTIAL_FILE_RULES } from './credentials.js';
export { instructionFileRule, INSTRUCTION_FILE_RULES } from './instructions.js';
export { compileGlobList, GLOB_OPTIONS, globProblem } from './glob.js';
export {
  checkBranch,
  checkDefaultBranch,
  ExposureError,
  selectPerimeters,
  type ExposureCode,
} from './establish/exposure.js';
export {
  BUILT_IN_FAMILIES,
  OPTIONAL_FAMILIES,
  OPTIONAL_FAMILY_NAMES,
  DEFAULT_CONFIG_FILE,
  type Family,
} from './protected.js';
export {
  ASSOCIATIONS,
  ITEM_EVENTS,
  judgeTrigger,
  triggerItem,
  type TrustRule,
  type TrustVerdict,
} from './establish/trust.js';
export {
  configRefNeedsRulesets,
  judgeConfigRef,
  type ConfigRefFacts,
  type ConfigRefVerdict,
} from './establish/config-ref.js';
export {
  bindsRef,
  fnmatch,
  locksOn,
  LOCK_RULES,
  type LockRule,
  type RefRuleset,
} from './establish/ref-rules.js';
export { establish, EstablishRefusal, type Established, type EstablishFacts } from './establish/establish.js';
export { CONVERSATION_TOOLS } from './tools.js';
export {
  commentProblem,
  CONVERSATION_DEFAULTS,
  MAX_MENTIONS,
  massMentionProblem,
  MENTION,
  mentionAllowed,
  mentionsIn,
  pullRequestProblem,
  type ConversationRule,
} from './conversation/rules.js';
