import type { Database } from '@engram/db';

export function createHealthActivities(deps: { db: Database }) {
  return {
    async checkDatabase(): Promise<{ serverVersion: string }> {
      const result = await deps.db.raw<{ rows: Array<{ server_version: string }> }>('show server_version');
      return { serverVersion: result.rows[0]?.server_version ?? 'unknown' };
    },
  };
}

export type HealthActivities = ReturnType<typeof createHealthActivities>;
