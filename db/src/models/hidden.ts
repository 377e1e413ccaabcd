/**
 * What the platform hides. An agent made for a template's editor (`simulated`), for an evaluation (`evaluation`) or
 * as a shared chat's copy for one visitor (`visitor_copy`) is not one of the organization's agents; an identity made
 * for a shared chat's visitor (`visitor`) is not one of its identities. No list, count, search, filter or limit
 * includes them: every such query takes its condition from here.
 */
export type AgentHiddenKind = 'simulated' | 'evaluation' | 'visitor_copy';
export type IdentityHiddenKind = 'visitor';

/** A condition on `agents`: the organization's own agents, every hidden kind left out. */
export const VISIBLE_AGENT = 'agents.hidden_kind is null';

/** A condition on `identities`: the organization's own identities, visitors' left out. */
export const VISIBLE_IDENTITY = 'identities.hidden_kind is null';

/** A condition on a table with an `agent_id` column (runs, traces): rows of hidden agents left out. */
export function ofVisibleAgent(table: string): string {
  return `not exists (select 1 from agents where agents.id = ${table}.agent_id and agents.hidden_kind is not null)`;
}

/** A condition on `blocks`: blocks that belong only to hidden agents (their own memory) left out; unattached ones stay. */
export const VISIBLE_BLOCK = `(not exists (select 1 from agent_blocks join agents on agents.id = agent_blocks.agent_id
    where agent_blocks.block_id = blocks.id and agents.hidden_kind is not null)
  or exists (select 1 from agent_blocks join agents on agents.id = agent_blocks.agent_id
    where agent_blocks.block_id = blocks.id and agents.hidden_kind is null))`;
