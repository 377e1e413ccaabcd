import { Identity, IdentityAgent, IdentityBlock } from '@engram/db';
import type { Knex } from 'knex';
import { NotFoundError } from '../../errors.js';

/** An identity with the ids of the agents and blocks linked to it, as the wire shape lists them. */
export type IdentityView = { identity: Identity; agentIds: string[]; blockIds: string[] };

export async function findIdentity(db: Knex, organizationId: string, identityId: string): Promise<Identity> {
  const identity = await Identity.query(db).forOrg(organizationId).findById(identityId);
  if (!identity) throw new NotFoundError('Identity');
  return identity;
}

function idsByIdentity<Row extends { identityId: string }>(rows: Row[], id: (row: Row) => string): Map<string, string[]> {
  const grouped = new Map<string, string[]>();
  for (const row of rows) grouped.set(row.identityId, [...(grouped.get(row.identityId) ?? []), id(row)]);
  return grouped;
}

export async function loadIdentityViews(db: Knex, organizationId: string, identities: Identity[]): Promise<IdentityView[]> {
  const ids = identities.map((identity) => identity.id);
  if (ids.length === 0) return [];
  // The platform's hidden agents linked to an identity (a template's simulated agent, an evaluation's) are not its agents.
  const agentLinks = await IdentityAgent.query(db)
    .forOrg(organizationId)
    .whereIn('identityId', ids)
    .whereNotExists((hidden) => void hidden.from('agents').whereRaw('agents.id = identity_agents.agent_id').whereNotNull('agents.hidden_kind'))
    .orderBy('agentId');
  const blockLinks = await IdentityBlock.query(db).forOrg(organizationId).whereIn('identityId', ids).orderBy('blockId');
  const agentIds = idsByIdentity(agentLinks, (link) => link.agentId);
  const blockIds = idsByIdentity(blockLinks, (link) => link.blockId);
  return identities.map((identity) => ({
    identity,
    agentIds: agentIds.get(identity.id) ?? [],
    blockIds: blockIds.get(identity.id) ?? [],
  }));
}

export async function loadIdentityView(db: Knex, organizationId: string, identityId: string): Promise<IdentityView> {
  const [view] = await loadIdentityViews(db, organizationId, [await findIdentity(db, organizationId, identityId)]);
  return view!;
}
