import type { AgentAccessScope } from '@engram/db';
import { ForbiddenError } from '../errors.js';
import type { Delegation } from '../services/access-tokens/delegation.js';
import { accessRuleFor } from './permissions.js';

const AGENT_ROUTES = '/v1/agents';
/** An agent's conversations are its messages too: reading them reads messages, anything else writes them. */
const CONVERSATION_ROUTES = '/v1/conversations';

/** An agent's conversation: its messages, sending to it, searching, editing or resetting them. */
const CONVERSATION = /\/(reset-)?messages(\/|$)/;

/**
 * The agent access scope a `/v1` route needs from a delegated token, or null when no scope reaches
 * it (everything outside `/v1/agents` and `/v1/conversations`). Reads are what the route's own rule asks only `read_*`
 * permissions for; everything else (sending messages included) writes.
 */
export function agentAccessScopeFor(method: string, routeUrl: string): AgentAccessScope | null {
  const url = routeUrl.length > 1 && routeUrl.endsWith('/') ? routeUrl.slice(0, -1) : routeUrl;
  const under = (prefix: string) => url === prefix || url.startsWith(`${prefix}/`);
  if (under(CONVERSATION_ROUTES)) return method === 'GET' || method === 'HEAD' ? 'read_messages' : 'write_messages';
  if (!under(AGENT_ROUTES)) return null;
  const rule = accessRuleFor(method, url);
  const reads = rule.kind === 'permission' && rule.permissions.every((permission) => permission.startsWith('read_'));
  if (CONVERSATION.test(url.slice(AGENT_ROUTES.length))) return reads ? 'read_messages' : 'write_messages';
  return reads ? 'read_agent' : 'write_agent';
}

/** Throws 403 unless the delegated token reaches this route (and, for a client-side token, this agent). */
export function assertDelegationAllows(delegation: Delegation, method: string, routeUrl: string, params: Record<string, unknown>): void {
  const scope = agentAccessScopeFor(method, routeUrl);
  if (!scope) throw new ForbiddenError('This token only reaches agents, their messages and their conversations');
  if (delegation.kind === 'scopes') {
    if (!delegation.scopes.has(scope)) throw new ForbiddenError(`This token was not granted the ${scope} scope`);
    return;
  }
  const agentId = params.agent_id ?? params.agentId;
  if (typeof agentId !== 'string') throw new ForbiddenError('This token only reaches the agents named in its policy');
  if (!delegation.agents.get(agentId)?.has(scope)) throw new ForbiddenError(`This token does not grant ${scope} on this agent`);
}
