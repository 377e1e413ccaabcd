import { AdePreference, Agent, type Database } from '@engram/db';
import { NotFoundError } from '../../errors.js';
import type { Actor } from '../tenancy/members.js';

export type DisplayConfig = Record<string, unknown>;

/** Each member's own layout of the agent development environment, per agent. */
export function createAdePreferenceService(deps: { db: Database }) {
  const { db } = deps;

  async function assertAgent(actor: Actor, agentId: string): Promise<void> {
    const agent = await Agent.query(db).forOrg(actor.organizationId).findById(agentId).select('id');
    if (!agent) throw new NotFoundError('Agent');
  }

  return {
    /** An agent never laid out yet has an empty configuration. */
    async get(actor: Actor, agentId: string): Promise<DisplayConfig> {
      await assertAgent(actor, agentId);
      const found = await AdePreference.query(db).forOrg(actor.organizationId).findOne({ userId: actor.userId, agentId });
      return found?.displayConfig ?? {};
    },

    async set(actor: Actor, agentId: string, displayConfig: DisplayConfig): Promise<DisplayConfig> {
      await assertAgent(actor, agentId);
      const saved = await AdePreference.query(db)
        .insert({ userId: actor.userId, agentId, organizationId: actor.organizationId, displayConfig })
        .onConflict(['user_id', 'agent_id'])
        .merge(['display_config', 'updated_at'])
        .returning('*');
      return saved.displayConfig;
    },
  };
}

export type AdePreferenceService = ReturnType<typeof createAdePreferenceService>;
