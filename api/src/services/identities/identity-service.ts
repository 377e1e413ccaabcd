import {
  newId,
  Agent,
  Block,
  Identity,
  IdentityAgent,
  IdentityBlock,
  type Database,
  type IdentityProperty,
  type IdentityType,
  type SecretBox,
  VISIBLE_AGENT,
  VISIBLE_IDENTITY,
} from '@engram/db';
import type { Knex } from 'knex';
import { UniqueViolationError } from 'objection';
import { ConflictError, NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { findAgent, loadAgentViews, type AgentInclude, type AgentView } from '../agents/agent-views.js';
import { keysetPage, type PageRequest } from '../shared/paging.js';
import { substringPattern } from '../blocks/substring-pattern.js';
import type { OrganizationService } from '../tenancy/organizations.js';
import { findIdentity, loadIdentityView, loadIdentityViews, type IdentityView } from './identity-views.js';

export type CreateIdentityInput = {
  identifier_key: string;
  name: string;
  identity_type: IdentityType;
  project_id?: string | null | undefined;
  agent_ids?: string[] | null | undefined;
  block_ids?: string[] | null | undefined;
  properties?: IdentityProperty[] | null | undefined;
};

export type UpdateIdentityInput = Partial<{ [Field in keyof CreateIdentityInput]: CreateIdentityInput[Field] | null }>;

export type IdentityFilter = {
  /** Part of the name, case-insensitive. */
  name?: string | undefined;
  projectId?: string | undefined;
  identifierKey?: string | undefined;
  identityType?: IdentityType | undefined;
};

export type IdentityServiceDeps = {
  db: Database;
  secrets: SecretBox;
  organizations: Pick<OrganizationService, 'resolveProject'>;
};

/** How a change treats existing properties and links: PATCH adds to them, PUT replaces them (as the reference server does). */
type ChangeMode = 'merge' | 'replace';

const LINKS = {
  agent: { resource: 'Agent', table: 'agents', linkTable: 'identity_agents', column: 'agent_id' },
  block: { resource: 'Block', table: 'blocks', linkTable: 'identity_blocks', column: 'block_id' },
} as const;

// db/src/ids.ts has no `identity` prefix yet; the format is the same `<prefix>-<uuid4>`.

/** One property per key; a later one wins, in the position of the first. */
function mergeProperties(current: IdentityProperty[], incoming: IdentityProperty[]): IdentityProperty[] {
  const byKey = new Map<string, IdentityProperty>();
  for (const property of [...current, ...incoming]) byKey.set(property.key, property);
  return [...byKey.values()];
}

function conflictOnDuplicateKey(identifierKey: string) {
  return (error: unknown): never => {
    if (error instanceof UniqueViolationError) {
      throw new ConflictError(`An identity with identifier_key '${identifierKey}' already exists in this project`);
    }
    throw error;
  };
}

export function createIdentityService(deps: IdentityServiceDeps) {
  const { db } = deps;

  async function projectFor(ctx: RequestContext, projectId: string | null | undefined): Promise<string> {
    return deps.organizations.resolveProject(ctx.organizationId, projectId ? { id: projectId } : ctx.project);
  }

  /** Links the identity to agents or blocks of the organization; an id that is not one of them is a 404. */
  async function link(trx: Knex, ctx: RequestContext, identityId: string, kind: keyof typeof LINKS, ids: string[], mode: ChangeMode) {
    const { resource, table, linkTable, column } = LINKS[kind];
    const wanted = [...new Set(ids)];
    const found = new Set<string>(await trx(table).where({ organization_id: ctx.organizationId }).whereIn('id', wanted).pluck('id'));
    const missing = wanted.find((id) => !found.has(id));
    if (missing) throw new NotFoundError(`${resource} '${missing}'`);
    if (mode === 'replace') await trx(linkTable).where({ identity_id: identityId }).delete();
    if (wanted.length === 0) return;
    await trx(linkTable)
      .insert(wanted.map((id) => ({ identity_id: identityId, [column]: id, organization_id: ctx.organizationId })))
      .onConflict(['identity_id', column])
      .ignore();
  }

  async function applyChange(trx: Knex, ctx: RequestContext, identity: Identity, change: UpdateIdentityInput, mode: ChangeMode) {
    const properties = change.properties != null ? mergeProperties(mode === 'merge' ? identity.properties : [], change.properties) : undefined;
    const identifierKey = change.identifier_key ?? identity.identifierKey;
    await identity
      .$query(trx)
      .patch({
        identifierKey,
        ...(change.name != null ? { name: change.name } : {}),
        ...(change.identity_type != null ? { identityType: change.identity_type } : {}),
        ...(properties ? { properties } : {}),
      })
      .catch(conflictOnDuplicateKey(identifierKey));
    if (change.agent_ids != null) await link(trx, ctx, identity.id, 'agent', change.agent_ids, mode);
    if (change.block_ids != null) await link(trx, ctx, identity.id, 'block', change.block_ids, mode);
  }

  async function insert(trx: Knex, ctx: RequestContext, input: CreateIdentityInput, projectId: string): Promise<string> {
    const identity = await Identity.query(trx)
      .insert({
        id: newId('identity'),
        organizationId: ctx.organizationId,
        projectId,
        identifierKey: input.identifier_key,
        name: input.name,
        identityType: input.identity_type,
        properties: mergeProperties([], input.properties ?? []),
      })
      .catch(conflictOnDuplicateKey(input.identifier_key));
    await link(trx, ctx, identity.id, 'agent', input.agent_ids ?? [], 'merge');
    await link(trx, ctx, identity.id, 'block', input.block_ids ?? [], 'merge');
    return identity.id;
  }

  function filtered(ctx: RequestContext, filter: IdentityFilter) {
    const query = Identity.query(db).forOrg(ctx.organizationId).whereRaw(VISIBLE_IDENTITY);
    if (filter.name) query.where('identities.name', 'ilike', substringPattern(filter.name));
    if (filter.projectId !== undefined) query.where('identities.project_id', filter.projectId);
    if (filter.identifierKey !== undefined) query.where('identities.identifier_key', filter.identifierKey);
    if (filter.identityType !== undefined) query.where('identities.identity_type', filter.identityType);
    return query;
  }

  return {
    async list(ctx: RequestContext, filter: IdentityFilter, page: PageRequest): Promise<IdentityView[]> {
      const identities = await keysetPage(filtered(ctx, filter), page, { table: 'identities' });
      return loadIdentityViews(db, ctx.organizationId, identities);
    },

    async count(ctx: RequestContext): Promise<number> {
      return Identity.query(db).forOrg(ctx.organizationId).whereRaw(VISIBLE_IDENTITY).resultSize();
    },

    /** An identifier_key already used in the project is a conflict. */
    async create(ctx: RequestContext, input: CreateIdentityInput): Promise<IdentityView> {
      const projectId = await projectFor(ctx, input.project_id);
      const identityId = await db.transaction((trx) => insert(trx, ctx, input, projectId));
      return loadIdentityView(db, ctx.organizationId, identityId);
    },

    /** Creates the identity, or replaces the name, type, properties and links of the one with this identifier_key. */
    async upsert(ctx: RequestContext, input: CreateIdentityInput): Promise<IdentityView> {
      const projectId = await projectFor(ctx, input.project_id);
      const identityId = await db.transaction(async (trx) => {
        const existing = await Identity.query(trx).forOrg(ctx.organizationId).findOne({ projectId, identifierKey: input.identifier_key });
        if (!existing) return insert(trx, ctx, input, projectId);
        await applyChange(trx, ctx, existing, input, 'replace');
        return existing.id;
      });
      return loadIdentityView(db, ctx.organizationId, identityId);
    },

    async get(ctx: RequestContext, identityId: string): Promise<IdentityView> {
      return loadIdentityView(db, ctx.organizationId, identityId);
    },

    /** Properties are merged by key and agent/block ids are added to the existing links. */
    async update(ctx: RequestContext, identityId: string, change: UpdateIdentityInput): Promise<IdentityView> {
      await db.transaction(async (trx) => applyChange(trx, ctx, await findIdentity(trx, ctx.organizationId, identityId), change, 'merge'));
      return loadIdentityView(db, ctx.organizationId, identityId);
    },

    async replaceProperties(ctx: RequestContext, identityId: string, properties: IdentityProperty[]): Promise<IdentityView> {
      await db.transaction(async (trx) =>
        applyChange(trx, ctx, await findIdentity(trx, ctx.organizationId, identityId), { properties }, 'replace'),
      );
      return loadIdentityView(db, ctx.organizationId, identityId);
    },

    /** The agents and blocks stay; only their links to the identity go. */
    async delete(ctx: RequestContext, identityId: string): Promise<void> {
      await findIdentity(db, ctx.organizationId, identityId);
      await Identity.query(db).forOrg(ctx.organizationId).deleteById(identityId);
    },

    async listAgents(ctx: RequestContext, identityId: string, page: PageRequest, included: ReadonlySet<AgentInclude>): Promise<AgentView[]> {
      await findIdentity(db, ctx.organizationId, identityId);
      const query = Agent.query(db)
        .forOrg(ctx.organizationId)
        .whereRaw(VISIBLE_AGENT)
        .whereExists(IdentityAgent.query(db).whereColumn('identity_agents.agent_id', 'agents.id').where('identity_agents.identity_id', identityId));
      const agents = await keysetPage(query, page, { table: 'agents' });
      return loadAgentViews(db, deps.secrets, ctx.organizationId, agents, included);
    },

    async listBlocks(ctx: RequestContext, identityId: string, page: PageRequest): Promise<Block[]> {
      await findIdentity(db, ctx.organizationId, identityId);
      const query = Block.query(db)
        .forOrg(ctx.organizationId)
        .whereExists(IdentityBlock.query(db).whereColumn('identity_blocks.block_id', 'blocks.id').where('identity_blocks.identity_id', identityId));
      return keysetPage(query, page, { table: 'blocks' });
    },

    /** Attaching twice changes nothing. */
    async attachAgent(ctx: RequestContext, agentId: string, identityId: string): Promise<void> {
      await findAgent(db, ctx.organizationId, agentId);
      await findIdentity(db, ctx.organizationId, identityId);
      await IdentityAgent.query(db)
        .insert({ identityId, agentId, organizationId: ctx.organizationId })
        .onConflict(['identityId', 'agentId'])
        .ignore();
    },

    async detachAgent(ctx: RequestContext, agentId: string, identityId: string): Promise<void> {
      await findAgent(db, ctx.organizationId, agentId);
      await findIdentity(db, ctx.organizationId, identityId);
      await IdentityAgent.query(db).forOrg(ctx.organizationId).where({ identityId, agentId }).delete();
    },
  };
}

export type IdentityService = ReturnType<typeof createIdentityService>;
