import type { Group } from '@engram/db';
import type { Knex } from 'knex';

/** A group with its members (in speaking order) and the blocks it shares. */
export type GroupView = { group: Group; agentIds: string[]; sharedBlockIds: string[] };

/**
 * Called inside the transaction that creates any group (a `POST /groups` or an agent's `enable_sleeptime`),
 * before the row is written: the place for the tier's group limit.
 */
export type AdmitGroup = (trx: Knex, organizationId: string) => Promise<void>;

/** What an agent's `enable_sleeptime` asks of the groups: its managed sleeptime group, made or removed with it. */
export type SleeptimeGroups = {
  createManaged(trx: Knex, organizationId: string, group: { managerAgentId: string; sleeptimeAgentId: string; projectId: string | null; userId: string }): Promise<void>;
  /** The sleep-time agents of the agent's managed group (to delete with it), the group removed. */
  removeManaged(trx: Knex, organizationId: string, managerAgentId: string): Promise<string[]>;
};
