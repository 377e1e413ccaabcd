import { Agent, Block, FileAgent, Group, Identity, IdentityAgent, maskSecret, Source, Tool, type SecretBox } from '@engram/db';
import type { Knex } from 'knex';
import { NotFoundError } from '../../errors.js';
import { loadIdentityViews, type IdentityView } from '../identities/identity-views.js';
import { loadGroupViews } from '../groups/group-service.js';
import type { GroupView } from '../groups/types.js';

/** Relationship fields a 1.0 client asks for with `include=`; the others come back empty. */
export const AGENT_INCLUDES = [
  'agent.blocks',
  'agent.identities',
  'agent.managed_group',
  'agent.pending_approval',
  'agent.secrets',
  'agent.sources',
  'agent.tags',
  'agent.tools',
] as const;

export type AgentInclude = (typeof AGENT_INCLUDES)[number];

/** What create, update and attach answer with: the whole agent, as the reference server returns it. */
export const EVERY_RELATIONSHIP: ReadonlySet<AgentInclude> = new Set(AGENT_INCLUDES);

export type AgentSecret = { key: string; value: string; description: string | null };

/** An agent with the relationships that were asked for (the others are empty lists). */
export type AgentView = {
  agent: Agent;
  included: ReadonlySet<AgentInclude>;
  blocks: Block[];
  tools: Tool[];
  /** The attached folders (the wire calls them `sources`). */
  sources: Source[];
  /** The agent's view of the files in those folders, which the deprecated `memory.file_blocks` shows beside the blocks. */
  files: FileAgent[];
  secrets: AgentSecret[];
  /** Always filled: the deprecated `identity_ids` field is not an opt-in relationship. */
  identityIds: string[];
  identities: IdentityView[];
  /** The group the agent manages (`managed_group`): the sleeptime group of its `enable_sleeptime` first. */
  managedGroup: GroupView | null;
};

type Attached<M> = M & { attachedAgentId: string };

export async function findAgent(db: Knex, organizationId: string, agentId: string): Promise<Agent> {
  const agent = await Agent.query(db).forOrg(organizationId).findById(agentId);
  if (!agent) throw new NotFoundError('Agent');
  return agent;
}

/** The agents' core memory blocks, in prompt order, by agent id. */
export async function blocksByAgent(db: Knex, organizationId: string, agentIds: string[]): Promise<Map<string, Block[]>> {
  const rows = (await Block.query(db)
    .forOrg(organizationId)
    .join('agent_blocks', 'agent_blocks.block_id', 'blocks.id')
    .whereIn('agent_blocks.agent_id', agentIds)
    .orderBy([{ column: 'agent_blocks.position' }, { column: 'blocks.created_at' }, { column: 'blocks.id' }])
    .select('blocks.*', 'agent_blocks.agent_id as attached_agent_id')) as Array<Attached<Block>>;
  return groupByAgent(rows);
}

/** The agents' tools by name, by agent id. */
export async function toolsByAgent(db: Knex, organizationId: string, agentIds: string[]): Promise<Map<string, Tool[]>> {
  const rows = (await Tool.query(db)
    .forOrg(organizationId)
    .join('agent_tools', 'agent_tools.tool_id', 'tools.id')
    .whereIn('agent_tools.agent_id', agentIds)
    .orderBy([{ column: 'tools.name' }, { column: 'tools.id' }])
    .select('tools.*', 'agent_tools.agent_id as attached_agent_id')) as Array<Attached<Tool>>;
  return groupByAgent(rows);
}

/** The agents' attached folders, oldest first, by agent id. */
export async function sourcesByAgent(db: Knex, organizationId: string, agentIds: string[]): Promise<Map<string, Source[]>> {
  const rows = (await Source.query(db)
    .forOrg(organizationId)
    .join('sources_agents', 'sources_agents.source_id', 'sources.id')
    .whereIn('sources_agents.agent_id', agentIds)
    .orderBy([{ column: 'sources.created_at' }, { column: 'sources.id' }])
    .select('sources.*', 'sources_agents.agent_id as attached_agent_id')) as Array<Attached<Source>>;
  return groupByAgent(rows);
}

/** The agents' `files_agents` rows, by file name, by agent id: one query for a whole page of agents. */
export async function filesByAgent(db: Knex, organizationId: string, agentIds: string[]): Promise<Map<string, FileAgent[]>> {
  const rows = (await FileAgent.query(db)
    .forOrg(organizationId)
    .whereIn('agentId', agentIds)
    .orderBy([{ column: 'fileName' }, { column: 'id' }])
    .select('files_agents.*', 'files_agents.agent_id as attached_agent_id')) as Array<Attached<FileAgent>>;
  return groupByAgent(rows);
}

function groupByAgent<M>(rows: Array<Attached<M>>): Map<string, M[]> {
  const grouped = new Map<string, M[]>();
  for (const row of rows) grouped.set(row.attachedAgentId, [...(grouped.get(row.attachedAgentId) ?? []), row]);
  return grouped;
}

/** Agent secrets are sealed at rest; they are opened only when a caller asks for them. */
/** Secrets are shown masked: enough to recognise a value, never to use it. */
export function maskedSecrets(agent: Agent, secrets: SecretBox): AgentSecret[] {
  return agent.toolExecEnvironmentVariables.map((variable) => ({
    key: variable.key,
    value: maskSecret(secrets.decrypt(variable.value)),
    description: variable.description ?? null,
  }));
}

export async function loadAgentViews(
  db: Knex,
  secrets: SecretBox,
  organizationId: string,
  agents: Agent[],
  included: ReadonlySet<AgentInclude>,
): Promise<AgentView[]> {
  const ids = agents.map((agent) => agent.id);
  const blocks = included.has('agent.blocks') && ids.length > 0 ? await blocksByAgent(db, organizationId, ids) : new Map<string, Block[]>();
  const tools = included.has('agent.tools') && ids.length > 0 ? await toolsByAgent(db, organizationId, ids) : new Map<string, Tool[]>();
  const sources = included.has('agent.sources') && ids.length > 0 ? await sourcesByAgent(db, organizationId, ids) : new Map<string, Source[]>();
  // File blocks are part of `memory`, which comes with the blocks, as on the reference server.
  const files = included.has('agent.blocks') && ids.length > 0 ? await filesByAgent(db, organizationId, ids) : new Map<string, FileAgent[]>();
  const links = ids.length > 0 ? await IdentityAgent.query(db).forOrg(organizationId).whereIn('agentId', ids).orderBy('identityId') : [];
  const identityViews = included.has('agent.identities') && links.length > 0
    ? await loadIdentityViews(db, organizationId, await Identity.query(db).forOrg(organizationId).whereIn('id', [...new Set(links.map((link) => link.identityId))]))
    : [];
  const managed = included.has('agent.managed_group') && ids.length > 0 ? await managedGroupsOf(db, organizationId, ids) : new Map<string, GroupView>();
  return agents.map((agent) => ({
    agent,
    included,
    blocks: blocks.get(agent.id) ?? [],
    tools: tools.get(agent.id) ?? [],
    sources: sources.get(agent.id) ?? [],
    files: files.get(agent.id) ?? [],
    secrets: included.has('agent.secrets') ? maskedSecrets(agent, secrets) : [],
    identityIds: links.filter((link) => link.agentId === agent.id).map((link) => link.identityId),
    identities: identityViews.filter((view) => view.agentIds.includes(agent.id)),
    managedGroup: managed.get(agent.id) ?? null,
  }));
}

/** The group each agent manages, its managed sleeptime group first, else its oldest. */
async function managedGroupsOf(db: Knex, organizationId: string, agentIds: string[]): Promise<Map<string, GroupView>> {
  const groups = await Group.query(db)
    .forOrg(organizationId)
    .whereIn('managerAgentId', agentIds)
    .orderBy([{ column: 'managed', order: 'desc' }, { column: 'created_at' }, { column: 'id' }]);
  const byManager = new Map<string, GroupView>();
  for (const view of await loadGroupViews(db, organizationId, groups)) {
    if (!byManager.has(view.group.managerAgentId!)) byManager.set(view.group.managerAgentId!, view);
  }
  return byManager;
}

export async function loadAgentView(
  db: Knex,
  secrets: SecretBox,
  organizationId: string,
  agentId: string,
  included: ReadonlySet<AgentInclude>,
): Promise<AgentView> {
  const agent = await findAgent(db, organizationId, agentId);
  const [view] = await loadAgentViews(db, secrets, organizationId, [agent], included);
  return view!;
}
