import { SUPERVISOR_TOOL_NAME } from '@engram/core';
import {
  Agent,
  AgentBlock,
  AgentTool,
  Block,
  Group,
  GroupAgent,
  GroupBlock,
  ensureBaseTools,
  newId,
  recompileSystemMessage,
  type Database,
  type GroupManagerType,
} from '@engram/db';
import type { Knex } from 'knex';
import { ConflictError, NotFoundError, UnprocessableError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import {
  SUPPORTED_MANAGER_TYPES,
  type CreateGroupInput,
  type ManagerConfigInput,
  type ManagerConfigUpdateInput,
  type UpdateGroupInput,
} from '../../contracts/v1/groups.js';
import { keysetPage, type PageRequest } from '../shared/paging.js';
import type { OrganizationService } from '../tenancy/organizations.js';
import type { AdmitGroup, GroupView, SleeptimeGroups } from './types.js';

export type GroupFilter = { managerType?: GroupManagerType | undefined; projectId?: string | undefined };

export type GroupServiceDeps = {
  db: Database;
  organizations: Pick<OrganizationService, 'resolveProject'>;
  /** Checks the tier's group limit (billing); every group is created through `insertGroup`, which calls it. */
  admitGroup?: AdmitGroup;
};

/** A dynamic group's turn ends on this unless its config names another, as on the reference server. */
const DEFAULT_TERMINATION_TOKEN = 'DONE!';
/** An agent's `enable_sleeptime` group runs its sleep-time agent every fifth turn, as the reference's does. */
export const MANAGED_SLEEPTIME_FREQUENCY = 5;

/** The stored settings of a manager config; a type that needs a manager agent must name one. */
type ManagerSettings = Pick<Group, 'managerType' | 'managerAgentId' | 'terminationToken' | 'maxTurns' | 'sleeptimeAgentFrequency' | 'maxMessageBufferLength' | 'minMessageBufferLength'>;

function refuseUnsupported(managerType: GroupManagerType): void {
  if ((SUPPORTED_MANAGER_TYPES as readonly string[]).includes(managerType)) return;
  throw new UnprocessableError(
    ['body', 'manager_config', 'manager_type'],
    `manager_type '${managerType}' is not supported; supported manager types: ${SUPPORTED_MANAGER_TYPES.join(', ')}`,
  );
}

/** A setting as sent (null clears it), else the value it had when the type stays the same, else its default. */
function setting<T>(given: T | null | undefined, kept: T | null | undefined, fallback: T | null = null): T | null {
  return given !== undefined ? given : (kept ?? fallback);
}

/**
 * The stored settings of a manager config (on update, `current` is the group as it is). Only the settings of the
 * config's type are kept; a type that needs a manager agent must name one, or keep the one it has.
 */
function settingsOf(config: ManagerConfigInput | ManagerConfigUpdateInput, current?: Group): ManagerSettings {
  refuseUnsupported(config.manager_type);
  const kept = current?.managerType === config.manager_type ? current : undefined;
  const managerAgentId = config.manager_type === 'round_robin' ? null : setting('manager_agent_id' in config ? config.manager_agent_id : undefined, current?.managerAgentId);
  if (config.manager_type !== 'round_robin' && !managerAgentId) {
    throw new UnprocessableError(['body', 'manager_config', 'manager_agent_id'], `A ${config.manager_type} group needs a manager_agent_id`);
  }
  return {
    managerType: config.manager_type,
    managerAgentId,
    terminationToken: config.manager_type === 'dynamic' ? setting(config.termination_token, kept?.terminationToken, DEFAULT_TERMINATION_TOKEN) : null,
    maxTurns: config.manager_type === 'round_robin' || config.manager_type === 'dynamic' ? setting(config.max_turns, kept?.maxTurns) : null,
    sleeptimeAgentFrequency: config.manager_type === 'sleeptime' ? setting(config.sleeptime_agent_frequency, kept?.sleeptimeAgentFrequency) : null,
    maxMessageBufferLength: null,
    minMessageBufferLength: null,
  };
}

/** Every agent a group's shared blocks reach: its members and its manager. */
function participantsOf(group: Pick<Group, 'managerAgentId'>, agentIds: string[]): string[] {
  return [...new Set([...agentIds, ...(group.managerAgentId ? [group.managerAgentId] : [])])];
}

export async function loadGroupViews(db: Knex, organizationId: string, groups: Group[]): Promise<GroupView[]> {
  const ids = groups.map((group) => group.id);
  const members = ids.length ? await GroupAgent.query(db).forOrg(organizationId).whereIn('groupId', ids).orderBy(['groupId', 'position']) : [];
  const blocks = ids.length ? await GroupBlock.query(db).forOrg(organizationId).whereIn('groupId', ids).orderBy(['groupId', 'blockId']) : [];
  return groups.map((group) => ({
    group,
    agentIds: members.filter((member) => member.groupId === group.id).map((member) => member.agentId),
    sharedBlockIds: blocks.filter((block) => block.groupId === group.id).map((block) => block.blockId),
  }));
}

export async function findGroup(db: Knex, organizationId: string, groupId: string): Promise<Group> {
  const group = await Group.query(db).forOrg(organizationId).findById(groupId);
  if (!group) throw new NotFoundError('Group');
  return group;
}

async function requireAgents(trx: Knex, organizationId: string, agentIds: string[], field: (index: number) => Array<string | number>): Promise<void> {
  const found = new Set((await Agent.query(trx).forOrg(organizationId).whereIn('id', agentIds).select('id')).map((agent) => agent.id));
  const missing = agentIds.findIndex((id) => !found.has(id));
  if (missing >= 0) throw new UnprocessableError(field(missing), `Agent ${agentIds[missing]} not found`);
}

async function requireBlocks(trx: Knex, organizationId: string, blockIds: string[]): Promise<Block[]> {
  const blocks = await Block.query(trx).forOrg(organizationId).whereIn('id', blockIds);
  const missing = blockIds.find((id) => !blocks.some((block) => block.id === id));
  if (missing) throw new UnprocessableError(['body', 'shared_block_ids'], `Block ${missing} not found`);
  return blockIds.map((id) => blocks.find((block) => block.id === id)!);
}

/** Puts the block in each agent's core memory (a no-op where it is already); another block with its label is a 409. */
async function shareBlock(trx: Knex, organizationId: string, block: Block, agentIds: string[]): Promise<string[]> {
  const changed: string[] = [];
  for (const agentId of agentIds) {
    const attached = await AgentBlock.query(trx).forOrg(organizationId).where({ agentId });
    if (attached.some((row) => row.blockId === block.id)) continue;
    if (attached.some((row) => row.label === block.label)) {
      throw new ConflictError(`Agent ${agentId} already has a block labelled '${block.label}'; a shared block must not replace it`);
    }
    const position = attached.reduce((last, row) => Math.max(last, row.position), -1) + 1;
    await AgentBlock.query(trx).insert({ agentId, blockId: block.id, organizationId, label: block.label, position });
    changed.push(agentId);
  }
  return changed;
}

async function unshareBlock(trx: Knex, organizationId: string, blockId: string, agentIds: string[]): Promise<string[]> {
  if (agentIds.length === 0) return [];
  const removed = await AgentBlock.query(trx).forOrg(organizationId).where({ blockId }).whereIn('agentId', agentIds).delete().returning('agentId');
  return (removed as unknown as Array<{ agentId: string }>).map((row) => row.agentId);
}

async function recompile(trx: Knex, organizationId: string, agentIds: Iterable<string>): Promise<void> {
  const now = new Date();
  for (const agentId of new Set(agentIds)) await recompileSystemMessage(trx, organizationId, agentId, now);
}

/** A supervisor's manager delegates through the group tool while it supervises at least one group. */
async function syncSupervisorTool(trx: Knex, organizationId: string, agentId: string | null): Promise<void> {
  if (!agentId) return;
  const supervises = await Group.query(trx).forOrg(organizationId).where({ managerAgentId: agentId, managerType: 'supervisor' }).resultSize();
  const tool = (await ensureBaseTools(trx, organizationId)).get(SUPERVISOR_TOOL_NAME);
  if (!tool) return;
  const attached = await AgentTool.query(trx).forOrg(organizationId).findById([agentId, tool.id]);
  if (supervises > 0 && !attached) await AgentTool.query(trx).insert({ agentId, toolId: tool.id, organizationId });
  if (supervises === 0 && attached) await AgentTool.query(trx).forOrg(organizationId).where({ agentId, toolId: tool.id }).delete();
}

export function createGroupService(deps: GroupServiceDeps) {
  const { db } = deps;

  /** The one way a group comes to exist: the tier check, the row, its members and its shared blocks. */
  async function insertGroup(
    trx: Knex,
    ctx: Pick<RequestContext, 'organizationId' | 'userId'>,
    fields: ManagerSettings & Pick<Group, 'description' | 'projectId' | 'hidden' | 'managed'>,
    agentIds: string[],
    sharedBlockIds: string[],
  ): Promise<Group> {
    // A sleep-time agent's managed group comes with its agent's setting: only groups made as such count against the tier.
    if (!fields.managed) await deps.admitGroup?.(trx, ctx.organizationId);
    const group = await Group.query(trx).insertAndFetch({
      id: newId('group'),
      organizationId: ctx.organizationId,
      ...fields,
      turnsCounter: 0,
      createdById: ctx.userId,
      lastUpdatedById: ctx.userId,
    } as Partial<Group>);
    if (agentIds.length) {
      await GroupAgent.query(trx).insert(agentIds.map((agentId, position) => ({ groupId: group.id, agentId, organizationId: ctx.organizationId, position })));
    }
    const changed = new Set<string>();
    for (const block of await requireBlocks(trx, ctx.organizationId, sharedBlockIds)) {
      await GroupBlock.query(trx).insert({ groupId: group.id, blockId: block.id, organizationId: ctx.organizationId });
      for (const agentId of await shareBlock(trx, ctx.organizationId, block, participantsOf(group, agentIds))) changed.add(agentId);
    }
    await recompile(trx, ctx.organizationId, changed);
    if (group.managerType === 'supervisor') await syncSupervisorTool(trx, ctx.organizationId, group.managerAgentId);
    return group;
  }

  async function view(organizationId: string, groupId: string, trx: Knex = db): Promise<GroupView> {
    const [found] = await loadGroupViews(trx, organizationId, [await findGroup(trx, organizationId, groupId)]);
    return found!;
  }

  function filtered(ctx: RequestContext, filter: GroupFilter) {
    const query = Group.query(db).forOrg(ctx.organizationId);
    if (filter.managerType) query.where('groups.manager_type', filter.managerType);
    if (filter.projectId !== undefined) query.where('groups.project_id', filter.projectId);
    return query;
  }

  const sleeptimeGroups: SleeptimeGroups = {
    async createManaged(trx, organizationId, managed) {
      await insertGroup(
        trx,
        { organizationId, userId: managed.userId },
        {
          managerType: 'sleeptime',
          managerAgentId: managed.managerAgentId,
          terminationToken: null,
          maxTurns: null,
          sleeptimeAgentFrequency: MANAGED_SLEEPTIME_FREQUENCY,
          maxMessageBufferLength: null,
          minMessageBufferLength: null,
          description: 'The sleep-time agent that manages this agent\'s memory in the background',
          projectId: managed.projectId,
          hidden: null,
          managed: true,
        },
        [managed.sleeptimeAgentId],
        [],
      );
    },

    async removeManaged(trx, organizationId, managerAgentId) {
      const managed = await Group.query(trx).forOrg(organizationId).where({ managerAgentId, managed: true });
      const views = await loadGroupViews(trx, organizationId, managed);
      await Group.query(trx).forOrg(organizationId).whereIn('id', managed.map((group) => group.id)).delete();
      return views.flatMap((found) => found.agentIds).filter((agentId) => agentId !== managerAgentId);
    },
  };

  return {
    sleeptimeGroups,

    async create(ctx: RequestContext, input: CreateGroupInput): Promise<GroupView> {
      const settings = settingsOf(input.manager_config);
      const agentIds = [...new Set(input.agent_ids)];
      return db.transaction(async (trx) => {
        await requireAgents(trx, ctx.organizationId, agentIds, (index) => ['body', 'agent_ids', index]);
        if (settings.managerAgentId) await requireAgents(trx, ctx.organizationId, [settings.managerAgentId], () => ['body', 'manager_config', 'manager_agent_id']);
        const projectId = await deps.organizations.resolveProject(ctx.organizationId, input.project_id ? { id: input.project_id } : ctx.project);
        const group = await insertGroup(
          trx,
          ctx,
          { ...settings, description: input.description, projectId, hidden: input.hidden ?? null, managed: false },
          agentIds,
          [...new Set(input.shared_block_ids ?? [])],
        );
        return view(ctx.organizationId, group.id, trx);
      });
    },

    async list(ctx: RequestContext, filter: GroupFilter, page: PageRequest): Promise<GroupView[]> {
      for (const cursor of [page.before, page.after]) if (cursor !== undefined) await findGroup(db, ctx.organizationId, cursor);
      return loadGroupViews(db, ctx.organizationId, await keysetPage(filtered(ctx, filter), page, { table: 'groups' }));
    },

    async count(ctx: RequestContext): Promise<number> {
      return filtered(ctx, {}).resultSize();
    },

    get: (ctx: RequestContext, groupId: string) => view(ctx.organizationId, groupId),

    /** The groups the agent is a member or the manager of. */
    async listForAgent(ctx: RequestContext, agentId: string, managerType?: GroupManagerType): Promise<GroupView[]> {
      const agent = await Agent.query(db).forOrg(ctx.organizationId).findById(agentId);
      if (!agent) throw new NotFoundError('Agent');
      const query = Group.query(db)
        .forOrg(ctx.organizationId)
        .where((scope) => {
          scope.where('groups.manager_agent_id', agentId).orWhereExists(GroupAgent.query(db).whereColumn('group_agents.group_id', 'groups.id').where('group_agents.agent_id', agentId));
        })
        .orderBy([{ column: 'groups.created_at' }, { column: 'groups.id' }]);
      if (managerType) query.where('groups.manager_type', managerType);
      return loadGroupViews(db, ctx.organizationId, await query);
    },

    async update(ctx: RequestContext, groupId: string, input: UpdateGroupInput): Promise<GroupView> {
      return db.transaction(async (trx) => {
        const group = await findGroup(trx, ctx.organizationId, groupId);
        const [before] = await loadGroupViews(trx, ctx.organizationId, [group.$clone()]);
        const settings = input.manager_config ? settingsOf(input.manager_config, group) : undefined;
        if (settings?.managerAgentId && settings.managerAgentId !== group.managerAgentId) {
          await requireAgents(trx, ctx.organizationId, [settings.managerAgentId], () => ['body', 'manager_config', 'manager_agent_id']);
        }
        const agentIds = input.agent_ids ? [...new Set(input.agent_ids)] : before!.agentIds;
        if (input.agent_ids) await requireAgents(trx, ctx.organizationId, agentIds, (index) => ['body', 'agent_ids', index]);
        const sharedBlockIds = input.shared_block_ids ? [...new Set(input.shared_block_ids)] : before!.sharedBlockIds;
        const projectId = input.project_id ? await deps.organizations.resolveProject(ctx.organizationId, { id: input.project_id }) : undefined;

        await group.$query(trx).patch({
          ...(settings ?? {}),
          ...(input.description != null ? { description: input.description } : {}),
          ...(input.hidden !== undefined ? { hidden: input.hidden } : {}),
          ...(projectId !== undefined ? { projectId } : {}),
          lastUpdatedById: ctx.userId,
        });
        if (input.agent_ids) {
          await GroupAgent.query(trx).forOrg(ctx.organizationId).where({ groupId }).delete();
          if (agentIds.length) {
            await GroupAgent.query(trx).insert(agentIds.map((agentId, position) => ({ groupId, agentId, organizationId: ctx.organizationId, position })));
          }
        }

        // Shared blocks follow the group: what left the group, or agents that left it, lose them; the rest have them all.
        const oldParticipants = participantsOf(before!.group, before!.agentIds);
        const newParticipants = participantsOf({ managerAgentId: settings ? settings.managerAgentId : group.managerAgentId }, agentIds);
        const changed = new Set<string>();
        for (const blockId of before!.sharedBlockIds) {
          const stays = sharedBlockIds.includes(blockId);
          const leaving = stays ? oldParticipants.filter((agentId) => !newParticipants.includes(agentId)) : oldParticipants;
          for (const agentId of await unshareBlock(trx, ctx.organizationId, blockId, leaving)) changed.add(agentId);
        }
        await GroupBlock.query(trx).forOrg(ctx.organizationId).where({ groupId }).delete();
        for (const block of await requireBlocks(trx, ctx.organizationId, sharedBlockIds)) {
          await GroupBlock.query(trx).insert({ groupId, blockId: block.id, organizationId: ctx.organizationId });
          for (const agentId of await shareBlock(trx, ctx.organizationId, block, newParticipants)) changed.add(agentId);
        }
        await recompile(trx, ctx.organizationId, changed);
        await syncSupervisorTool(trx, ctx.organizationId, before!.group.managerAgentId);
        if (settings && settings.managerAgentId !== before!.group.managerAgentId) await syncSupervisorTool(trx, ctx.organizationId, settings.managerAgentId);
        return view(ctx.organizationId, groupId, trx);
      });
    },

    /**
     * Deletes the group (its members and their histories stay; blocks it shared stay in their memory). A
     * managed sleeptime group's manager no longer has `enable_sleeptime`.
     */
    async delete(ctx: RequestContext, groupId: string): Promise<void> {
      await db.transaction(async (trx) => {
        const group = await findGroup(trx, ctx.organizationId, groupId);
        await group.$query(trx).delete();
        if (group.managed && group.managerAgentId) {
          await Agent.query(trx).forOrg(ctx.organizationId).findById(group.managerAgentId).patch({ enableSleeptime: false });
        }
        await syncSupervisorTool(trx, ctx.organizationId, group.managerAgentId);
      });
    },

    /** Shares a block with the group: every member (and the manager) gets it in core memory. */
    async attachBlock(ctx: RequestContext, groupId: string, blockId: string): Promise<void> {
      await db.transaction(async (trx) => {
        const found = await view(ctx.organizationId, groupId, trx);
        const block = await Block.query(trx).forOrg(ctx.organizationId).findById(blockId);
        if (!block) throw new NotFoundError('Block');
        if (found.sharedBlockIds.includes(blockId)) return;
        await GroupBlock.query(trx).insert({ groupId, blockId, organizationId: ctx.organizationId });
        await recompile(trx, ctx.organizationId, await shareBlock(trx, ctx.organizationId, block, participantsOf(found.group, found.agentIds)));
      });
    },

    /** Stops sharing the block: it leaves the group and the memory of its members (and manager). */
    async detachBlock(ctx: RequestContext, groupId: string, blockId: string): Promise<void> {
      await db.transaction(async (trx) => {
        const found = await view(ctx.organizationId, groupId, trx);
        const block = await Block.query(trx).forOrg(ctx.organizationId).findById(blockId);
        if (!block) throw new NotFoundError('Block');
        const removed = await GroupBlock.query(trx).forOrg(ctx.organizationId).where({ groupId, blockId }).delete();
        if (removed === 0) return;
        await recompile(trx, ctx.organizationId, await unshareBlock(trx, ctx.organizationId, blockId, participantsOf(found.group, found.agentIds)));
      });
    },
  };
}

export type GroupService = ReturnType<typeof createGroupService>;
