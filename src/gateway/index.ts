export { startGateway, type GatewayOptions, type RunningGateway } from './gateway.js';
export { verifyLedger, readLedgerFacts, type LedgerFacts, type LedgerVerdict } from './ledger.js';
export { claudeMcpConfig } from './client-config.js';
