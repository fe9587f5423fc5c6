import { runGatewayProcess } from './child.js';

void runGatewayProcess();
