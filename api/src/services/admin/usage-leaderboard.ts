import type { Database } from '@engram/db';

export type LeaderboardEntry = { organizationId: string; organizationName: string; runs: number; steps: number; totalTokens: number };

/** Organizations by model usage over the last `days`, heaviest first. */
export function createUsageLeaderboardService(deps: { db: Database }) {
  const { db } = deps;
  return {
    async top(input: { days: number; limit: number }): Promise<LeaderboardEntry[]> {
      const since = new Date(Date.now() - input.days * 24 * 60 * 60_000);
      const rows = await db('steps')
        .join('organizations', 'organizations.id', 'steps.organization_id')
        .where('steps.created_at', '>=', since)
        .groupBy('organizations.id', 'organizations.name')
        .select('organizations.id as organizationId', 'organizations.name as organizationName')
        .countDistinct({ runs: 'steps.run_id' })
        .count({ steps: '*' })
        .sum({ totalTokens: 'steps.total_tokens' })
        .orderBy('totalTokens', 'desc')
        .limit(input.limit);
      return (rows as Array<Record<string, unknown>>).map((row) => ({
        organizationId: String(row.organizationId),
        organizationName: String(row.organizationName),
        runs: Number(row.runs),
        steps: Number(row.steps),
        totalTokens: Number(row.totalTokens ?? 0),
      }));
    },
  };
}

export type UsageLeaderboardService = ReturnType<typeof createUsageLeaderboardService>;
