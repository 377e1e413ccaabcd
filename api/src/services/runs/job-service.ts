import { isId, Run, type Database, ofVisibleAgent } from '@engram/db';
import { NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import type { BatchService, BatchWithCounts } from '../batches/batch-service.js';
import type { PageRequest } from '../shared/paging.js';
import type { RunFilter, RunService } from './run-service.js';

/** A job of `/v1/jobs`: a run (`job_type` run) or a message batch (`job_type` batch). */
export type Job = { kind: 'run'; run: Run } | { kind: 'batch'; batch: BatchWithCounts };

const ACTIVE = ['created', 'running'];

/**
 * The older `/v1/jobs` routes over the two kinds of job: runs and message batches, listed together in
 * creation order. A batch names no agent, so a listing filtered by agent has none.
 */
export function createJobService(deps: {
  db: Database;
  runs: Pick<RunService, 'getRun' | 'cancelRun' | 'deleteRun'>;
  batches: Pick<BatchService, 'get' | 'getMany' | 'cancel' | 'delete'>;
}) {
  const isBatch = (jobId: string) => isId('batch', jobId);

  return {
    async list(ctx: RequestContext, filter: RunFilter, page: PageRequest): Promise<Job[]> {
      for (const cursor of [page.before, page.after]) if (cursor !== undefined) await this.get(ctx, cursor);
      const runs = deps.db('runs').where('organization_id', ctx.organizationId).select('id', 'created_at', deps.db.raw(`'run' as kind`));
      // Runs of hidden agents (a template's simulated agent, an evaluation's, a visitor's copy) are listed only by their agent.
      if (filter.agentIds?.length) runs.whereIn('agent_id', filter.agentIds);
      else runs.whereRaw(ofVisibleAgent('runs'));
      if (filter.statuses?.length) runs.whereIn('status', filter.statuses);
      if (filter.active) runs.whereIn('status', ACTIVE);
      if (filter.background !== undefined) runs.where('background', filter.background);
      if (filter.stopReason !== undefined) runs.where('stop_reason', filter.stopReason);
      const batches = deps.db('message_batches').where('organization_id', ctx.organizationId).select('id', 'created_at', deps.db.raw(`'batch' as kind`));
      if (filter.agentIds?.length || filter.background === false || filter.stopReason !== undefined) batches.whereRaw('false');
      if (filter.statuses?.length) batches.whereIn('status', filter.statuses);
      if (filter.active) batches.whereIn('status', ACTIVE);

      const later = page.order === 'desc' ? '<' : '>';
      const earlier = page.order === 'desc' ? '>' : '<';
      const cursorRow = `(select created_at, id from runs where id = ? union all select created_at, id from message_batches where id = ?)`;
      const query = deps.db.from(deps.db.raw('(?) as jobs', [runs.unionAll(batches)])).select('id', 'kind');
      if (page.after) query.whereRaw(`(jobs.created_at, jobs.id) ${later} ${cursorRow}`, [page.after, page.after]);
      if (page.before) query.whereRaw(`(jobs.created_at, jobs.id) ${earlier} ${cursorRow}`, [page.before, page.before]);
      const backwards = page.before !== undefined && page.after === undefined;
      const direction = (page.order === 'desc') !== backwards ? 'desc' : 'asc';
      const rows = (await query.orderBy([{ column: 'created_at', order: direction }, { column: 'id', order: direction }]).limit(page.limit)) as Array<{ id: string; kind: 'run' | 'batch' }>;
      const ordered = backwards ? rows.reverse() : rows;

      const runIds = ordered.filter((row) => row.kind === 'run').map((row) => row.id);
      const runsById = new Map((runIds.length ? await Run.query(deps.db).forOrg(ctx.organizationId).whereIn('id', runIds) : []).map((run) => [run.id, run]));
      const batchesById = new Map((await deps.batches.getMany(ctx, ordered.filter((row) => row.kind === 'batch').map((row) => row.id))).map((found) => [found.batch.id, found]));
      return ordered.flatMap((row): Job[] => {
        if (row.kind === 'run') {
          const run = runsById.get(row.id);
          return run ? [{ kind: 'run', run }] : [];
        }
        const batch = batchesById.get(row.id);
        return batch ? [{ kind: 'batch', batch }] : [];
      });
    },

    async get(ctx: RequestContext, jobId: string): Promise<Job> {
      if (isBatch(jobId)) return { kind: 'batch', batch: await deps.batches.get(ctx, jobId) };
      const run = await Run.query(deps.db).forOrg(ctx.organizationId).findById(jobId);
      if (!run) throw new NotFoundError('Job');
      return { kind: 'run', run };
    },

    /** Cancels the job if it is still active (a finished one is answered as it is). */
    async cancel(ctx: RequestContext, jobId: string): Promise<Job> {
      if (isBatch(jobId)) {
        const { batch } = await deps.batches.get(ctx, jobId);
        if (batch.status === 'created' || batch.status === 'running') await deps.batches.cancel(ctx, jobId);
        return this.get(ctx, jobId);
      }
      await deps.runs.cancelRun(ctx, await deps.runs.getRun(ctx, jobId));
      return this.get(ctx, jobId);
    },

    /** Cancels the job if it is active, then deletes its record; answers the job as it was. */
    async delete(ctx: RequestContext, jobId: string): Promise<Job> {
      if (isBatch(jobId)) return { kind: 'batch', batch: await deps.batches.delete(ctx, jobId) };
      return { kind: 'run', run: await deps.runs.deleteRun(ctx, jobId) };
    },
  };
}

export type JobService = ReturnType<typeof createJobService>;
