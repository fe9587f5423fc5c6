import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { EGRESS_RECORD, type EgressDecision } from '../../gateway/serving/egress-proxy.js';
import { inlineText } from '../../verify/index.js';

/** What the agent's egress proxy decided, per host and port: how often reached, how often refused. */
export interface EgressFacts {
  hosts: Array<{ host: string; port: number; reached: number; refused: number }>;
}

/** The egress record beside the ledger (post's copy of the gateway's directory); null when there is none. */
export function readEgress(ledgerPath: string): EgressFacts | null {
  const path = join(dirname(ledgerPath), EGRESS_RECORD);
  if (ledgerPath === '' || !existsSync(path)) return null;
  const byHost = new Map<string, { host: string; port: number; reached: number; refused: number }>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line === '') continue;
    let decision: EgressDecision;
    try {
      decision = JSON.parse(line) as EgressDecision;
    } catch {
      continue;
    }
    const key = `${decision.host}:${decision.port}`;
    const entry = byHost.get(key) ?? { host: decision.host, port: decision.port, reached: 0, refused: 0 };
    if (decision.allowed) entry.reached++;
    else entry.refused++;
    byHost.set(key, entry);
  }
  return { hosts: [...byHost.values()].sort((a, b) => b.refused - a.refused || (a.host < b.host ? -1 : 1)) };
}

/** The receipt summary's section: every host the agent asked the proxy for, reached or refused. */
export function renderEgress(facts: EgressFacts | null): string {
  if (facts === null) return '';
  const lines = ['', "### The agent's egress", ''];
  if (facts.hosts.length === 0) lines.push('The agent asked the egress proxy for no host.');
  else {
    lines.push('| host | port | reached | refused |', '|---|---|---|---|');
    for (const h of facts.hosts.slice(0, 100))
      lines.push(`| ${inlineText(h.host)} | ${h.port} | ${h.reached} | ${h.refused} |`);
    if (facts.hosts.length > 100) lines.push('', `and ${facts.hosts.length - 100} more hosts.`);
  }
  return `${lines.join('\n')}\n`;
}
