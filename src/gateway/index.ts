export { startGateway, type GatewayOptions, type RunningGateway } from './gateway.js';
export { claudeMcpConfig } from './client-config.js';
