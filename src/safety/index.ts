export { NO_FILTER, type AnswerFilter, type Redaction } from './answer-filter.js';
export {
  ContentSafetyError,
  createSecretFilter,
  type SecretFilter,
  type SecretFilterOptions,
} from './secret-filter.js';
export { scanContent, type ContentScan } from './content-scan.js';
