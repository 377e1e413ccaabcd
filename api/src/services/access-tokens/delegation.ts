import type { AgentAccessScope } from '@engram/db';

/**
 * What a delegated token may do on top of its user's role: a token never does more than its user
 * may, and only the agent access scopes (spec 000 §6) it was given.
 * - `scopes`: an OAuth access token; those scopes on any agent of the organization it was granted for.
 * - `agents`: a client-side access token; its policy names each agent and the scopes on it, nothing else.
 */
export type Delegation =
  | { kind: 'scopes'; scopes: ReadonlySet<AgentAccessScope> }
  | { kind: 'agents'; agents: ReadonlyMap<string, ReadonlySet<AgentAccessScope>> };
