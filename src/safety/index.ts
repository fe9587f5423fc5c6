export { NO_FILTER, type AnswerFilter, type Redaction } from './answer-filter.js';
export { ContentSafetyError, createSecretFilter, type SecretFilterOptions } from './secret-filter.js';
