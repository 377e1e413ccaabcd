import { LettaImportMapping, type LettaImportKind } from '@engram/db';
import type { Knex } from 'knex';

export type MappingScope = { organizationId: string; sourceUrl: string; importId: string };

/**
 * Source id → target id for one organization and source. `create` makes the target row and records the mapping in
 * one transaction, so a worker dying between the two cannot leave an unmapped copy behind for the next run to
 * duplicate.
 */
export function createMapping(db: Knex, scope: MappingScope) {
  const cache = new Map<string, string>();
  const keyOf = (kind: LettaImportKind, sourceId: string) => `${kind}\u0000${sourceId}`;

  async function find(kind: LettaImportKind, sourceId: string, runner: Knex = db): Promise<string | undefined> {
    const key = keyOf(kind, sourceId);
    const cached = cache.get(key);
    if (cached) return cached;
    const row = await LettaImportMapping.query(runner)
      .forOrg(scope.organizationId)
      .findOne({ sourceUrl: scope.sourceUrl, kind, sourceId });
    if (row) cache.set(key, row.targetId);
    return row?.targetId;
  }

  return {
    find,

    /** Every mapping of a kind, source id → target id. */
    async all(kind: LettaImportKind): Promise<Map<string, string>> {
      const rows = await LettaImportMapping.query(db).forOrg(scope.organizationId).where({ sourceUrl: scope.sourceUrl, kind });
      return new Map(rows.map((row) => [row.sourceId, row.targetId]));
    },

    /**
     * The target of `sourceId`, made by `make` (inside the transaction that records it) when there is none yet.
     * `created` says whether this call made it.
     */
    async ensure(kind: LettaImportKind, sourceId: string, make: (trx: Knex.Transaction) => Promise<string>): Promise<{ targetId: string; created: boolean }> {
      const existing = await find(kind, sourceId);
      if (existing) return { targetId: existing, created: false };
      const outcome = await db.transaction(async (trx) => {
        const raced = await find(kind, sourceId, trx);
        if (raced) return { targetId: raced, created: false };
        const made = await make(trx);
        await LettaImportMapping.query(trx).insert({
          organizationId: scope.organizationId,
          sourceUrl: scope.sourceUrl,
          kind,
          sourceId,
          targetId: made,
          importId: scope.importId,
        });
        return { targetId: made, created: true };
      });
      cache.set(keyOf(kind, sourceId), outcome.targetId);
      return outcome;
    },
  };
}

export type Mapping = ReturnType<typeof createMapping>;
