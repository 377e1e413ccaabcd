import { parseIpNetwork } from './addresses.js';
import type { EgressConfig, EgressRule } from './policy.js';

export class EgressConfigError extends Error {}

const HOST_NAME = /^(\*\.)?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** `mcp.corp.internal, *.corp.internal, 10.0.0.0/8, 192.168.1.20, ::1`, or `none`. */
function parseRules(variable: string, value: string | undefined): EgressRule[] {
  const entries = (value ?? '').split(',').map((entry) => entry.trim().toLowerCase()).filter(Boolean);
  if (entries.length === 1 && entries[0] === 'none') return [];
  return entries.map((entry): EgressRule => {
    const network = parseIpNetwork(entry);
    if (network) return { kind: 'network', network };
    if (HOST_NAME.test(entry.replace(/\.$/, ''))) return { kind: 'host', host: entry.replace(/\.$/, '') };
    throw new EgressConfigError(`${variable}: "${entry}" is not a host name, an IP address or a CIDR network (a comma-separated list of them, or none)`);
  });
}

/** Parsed once by each process's entry point (the API server and the worker): what tenants' URLs may reach besides the public internet. */
export function parseEgressConfig(env: NodeJS.ProcessEnv): EgressConfig {
  return {
    allow: parseRules('ENGRAM_EGRESS_ALLOW', env.ENGRAM_EGRESS_ALLOW),
    allowFirstOrganization: parseRules('ENGRAM_EGRESS_ALLOW_FIRST_ORGANIZATION', env.ENGRAM_EGRESS_ALLOW_FIRST_ORGANIZATION),
  };
}
