import { createEgressPolicy, parseEgressConfig, type EgressPolicy } from '@engram/integrations/egress';

/**
 * The egress policy of a test that composes integrations itself: every organization may reach loopback, where the
 * tests' model, MCP and callback servers listen; everything else is refused as in production.
 */
export function loopbackEgress(): EgressPolicy {
  return createEgressPolicy({ ...parseEgressConfig({ ENGRAM_EGRESS_ALLOW: '127.0.0.0/8,::1' }), firstOrganizationId: null, onRefused: () => undefined });
}
