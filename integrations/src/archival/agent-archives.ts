import { Agent, Archive, ArchiveAgent } from '@engram/db';
import type { Knex } from 'knex';
import { LOCAL_EMBEDDING_CONFIG } from './local-embedder.js';

/** The archives an agent's archival memory is made of, oldest attachment first. */
export async function archivesOfAgent(db: Knex, organizationId: string, agentId: string): Promise<Archive[]> {
  return Archive.query(db)
    .forOrg(organizationId)
    .join('archives_agents', 'archives_agents.archive_id', 'archives.id')
    .where('archives_agents.agent_id', agentId)
    .orderBy([{ column: 'archives_agents.created_at' }, { column: 'archives.id' }])
    .select('archives.*');
}

/**
 * Where an agent's archival inserts go: the archive it owns, else the first archive attached to it, else
 * a new archive created for it now (embedded with the agent's embedding config, or the local embedder).
 * The agent row is locked meanwhile, so two concurrent first inserts create one archive.
 */
export async function archiveForInsert(trx: Knex.Transaction, agent: Agent): Promise<Archive> {
  await Agent.query(trx).forOrg(agent.organizationId).findById(agent.id).forUpdate();
  const archives = await Archive.query(trx)
    .forOrg(agent.organizationId)
    .join('archives_agents', 'archives_agents.archive_id', 'archives.id')
    .where('archives_agents.agent_id', agent.id)
    .orderBy([{ column: 'archives_agents.is_owner', order: 'desc' }, { column: 'archives_agents.created_at' }])
    .select('archives.*');
  if (archives[0]) return archives[0];
  const archive = await Archive.query(trx)
    .insert({
      id: Archive.newId(),
      organizationId: agent.organizationId,
      name: `${agent.name}'s Archive`,
      description: null,
      embeddingConfig: agent.embeddingConfig ?? LOCAL_EMBEDDING_CONFIG,
      vectorDbProvider: 'native',
      metadata: {},
    })
    .returning('*');
  await ArchiveAgent.query(trx).insert({ archiveId: archive.id, agentId: agent.id, organizationId: agent.organizationId, isOwner: true });
  return archive;
}
