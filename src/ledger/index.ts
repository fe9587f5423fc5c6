export { checkChain, verifyLedger, type LedgerVerdict } from './chain.js';
export {
  canonicalJson,
  GENESIS,
  type CallRecord,
  type Digest,
  type LedgerEntry,
  type LifecycleRecord,
  type RefusalKind,
  type SealedRecord,
} from './record.js';
export { Ledger } from './writer.js';
