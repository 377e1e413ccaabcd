import { z } from 'zod';
import {
  AgentTemplate,
  AgentTemplateVersion,
  Dataset,
  DatasetItem,
  DatasetRun,
  DatasetRunResult,
  newId,
  type Database,
  type DatasetMessage,
  type DatasetScorer,
} from '@engram/db';
import type { DatasetRunClient } from '@engram/temporal/client';
import { ConsoleError, NotFoundError, UnprocessableError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import type { OrganizationService } from '../tenancy/organizations.js';
import type { TemplateService } from '../templates/template-service.js';

/** Items one dataset may hold: each run makes an agent per item. */
export const MAX_DATASET_ITEMS = 1000;
/** Items of a run running at once, unless the run asks for fewer. */
export const DEFAULT_RUN_CONCURRENCY = 4;
export const MAX_RUN_CONCURRENCY = 20;

export type DatasetItemFields = {
  createMessage: DatasetMessage;
  expectedAnswer: string | null;
  scorer: DatasetScorer | null;
  graderNote: string | null;
};

/** One line of a JSONL import or export. */
export const DatasetItemLine = z.object({
  createMessage: z.object({ role: z.enum(['user', 'system']).default('user'), content: z.string().min(1, 'The message is empty') }),
  expectedAnswer: z.string().nullish(),
  scorer: z.enum(['exact', 'contains', 'llm']).nullish(),
  graderNote: z.string().nullish(),
});

export type DatasetRunView = { run: DatasetRun; templateName: string; version: number; counts: Record<string, number> };

export type DatasetRunSummary = {
  items: number;
  completed: number;
  failed: number;
  running: number;
  scored: number;
  meanScore: number | null;
  medianLatencyMs: number | null;
  totalTokens: number;
  totalCost: number;
  toolErrors: number;
};

export type DatasetServiceDeps = {
  db: Database;
  organizations: Pick<OrganizationService, 'resolveProject'>;
  templates: Pick<TemplateService, 'resolveVersion' | 'createHiddenAgents'>;
  runs: DatasetRunClient;
};

const conflict = (message: string) => new ConsoleError('conflict', 'conflict', message);
const validation = (message: string) => new ConsoleError('bad_request', 'validation', message);
const tooManyItems = () => new ConsoleError('bad_request', 'maxUsage', `A dataset holds at most ${MAX_DATASET_ITEMS} items`, { limit: MAX_DATASET_ITEMS });

/** An item as stored: a scorer only with an expected answer or a grader note, exact when an answer is expected and none is named. */
export function itemFields(input: z.infer<typeof DatasetItemLine>): DatasetItemFields {
  const expectedAnswer = input.expectedAnswer ?? null;
  const graderNote = input.graderNote ?? null;
  const scorer = input.scorer ?? (expectedAnswer !== null ? 'exact' : graderNote !== null ? 'llm' : null);
  if ((scorer === 'exact' || scorer === 'contains') && expectedAnswer === null) throw validation(`The ${scorer} scorer needs an expected answer`);
  return { createMessage: { role: input.createMessage.role, content: input.createMessage.content }, expectedAnswer, scorer, graderNote };
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function summarize(results: DatasetRunResult[]): DatasetRunSummary {
  const finished = results.filter((result) => result.status === 'completed' || result.status === 'failed');
  const scores = results.flatMap((result) => (result.score === null ? [] : [result.score]));
  return {
    items: results.length,
    completed: results.filter((result) => result.status === 'completed').length,
    failed: results.filter((result) => result.status === 'failed').length,
    running: results.length - finished.length,
    scored: scores.length,
    meanScore: scores.length ? scores.reduce((sum, score) => sum + score, 0) / scores.length : null,
    medianLatencyMs: median(finished.flatMap((result) => (result.latencyMs === null ? [] : [result.latencyMs]))),
    totalTokens: results.reduce((sum, result) => sum + (result.totalTokens ?? 0), 0),
    totalCost: results.reduce((sum, result) => sum + Number(result.cost ?? 0), 0),
    toolErrors: results.reduce((sum, result) => sum + (result.toolErrors ?? 0), 0),
  };
}

/**
 * Datasets (spec 000 §3, §7): messages to send an agent, each optionally with the answer expected of it, and runs
 * of a dataset against a saved template version. A run makes one hidden agent per item from the version, then a
 * workflow sends each item to its agent as a normal durable run and records what happened.
 */
export function createDatasetService(deps: DatasetServiceDeps) {
  const { db } = deps;

  async function find(ctx: RequestContext, id: string): Promise<Dataset> {
    const dataset = await Dataset.query(db).forOrg(ctx.organizationId).findById(id);
    if (!dataset) throw new NotFoundError('Dataset');
    return dataset;
  }

  async function findItem(ctx: RequestContext, datasetId: string, itemId: string): Promise<DatasetItem> {
    const item = await DatasetItem.query(db).forOrg(ctx.organizationId).findOne({ id: itemId, datasetId });
    if (!item) throw new NotFoundError('Dataset item');
    return item;
  }

  async function findRun(ctx: RequestContext, runId: string): Promise<DatasetRun> {
    const run = await DatasetRun.query(db).forOrg(ctx.organizationId).findById(runId);
    if (!run) throw new NotFoundError('Dataset run');
    return run;
  }

  async function assertNameFree(ctx: RequestContext, projectId: string, name: string, except?: string): Promise<void> {
    const taken = await Dataset.query(db).forOrg(ctx.organizationId).findOne({ projectId, name });
    if (taken && taken.id !== except) throw conflict(`A dataset named '${name}' already exists in this project`);
  }

  /** Inserts items within the dataset's item cap; the dataset row is locked so concurrent adds count one another. */
  async function insertItems(ctx: RequestContext, datasetId: string, items: DatasetItemFields[]): Promise<DatasetItem[]> {
    return db.transaction(async (trx) => {
      await Dataset.query(trx).forOrg(ctx.organizationId).findById(datasetId).forUpdate();
      const held = await DatasetItem.query(trx).forOrg(ctx.organizationId).where({ datasetId }).resultSize();
      if (held + items.length > MAX_DATASET_ITEMS) throw tooManyItems();
      const now = Date.now();
      const rows = items.map((item, index) => ({
        id: newId('datasetItem'),
        organizationId: ctx.organizationId,
        datasetId,
        ...item,
        // Items keep the order they were given in, also when added at once.
        createdAt: new Date(now + index),
        updatedAt: new Date(now + index),
      }));
      const inserted: DatasetItem[] = [];
      for (let start = 0; start < rows.length; start += 500) {
        inserted.push(...(await DatasetItem.query(trx).insert(rows.slice(start, start + 500) as unknown as DatasetItem[]).returning('*')));
      }
      return inserted;
    });
  }

  async function runView(ctx: RequestContext, run: DatasetRun): Promise<DatasetRunView> {
    const template = await AgentTemplate.query(db).forOrg(ctx.organizationId).findById(run.templateId);
    const version = await AgentTemplateVersion.query(db).forOrg(ctx.organizationId).findById(run.templateVersionId);
    const counts = (await DatasetRunResult.query(db)
      .forOrg(ctx.organizationId)
      .where({ datasetRunId: run.id })
      .groupBy('status')
      .select('status')
      .count('* as count')) as unknown as Array<{ status: string; count: string }>;
    return {
      run,
      templateName: template?.name ?? '',
      version: version?.version ?? 0,
      counts: Object.fromEntries(counts.map((row) => [row.status, Number(row.count)])),
    };
  }

  async function resultsOf(ctx: RequestContext, runId: string): Promise<DatasetRunResult[]> {
    return DatasetRunResult.query(db)
      .forOrg(ctx.organizationId)
      .join('dataset_items', 'dataset_items.id', 'dataset_run_results.item_id')
      .where('dataset_run_results.dataset_run_id', runId)
      .orderBy([{ column: 'dataset_items.created_at' }, { column: 'dataset_items.id' }])
      .select('dataset_run_results.*');
  }

  return {
    get: find,

    async list(ctx: RequestContext, query: { search?: string | undefined; projectId?: string | undefined; offset: number; limit: number }) {
      const rows = Dataset.query(db).forOrg(ctx.organizationId);
      if (query.projectId) rows.where({ projectId: query.projectId });
      if (query.search) rows.where('name', 'ilike', `%${query.search.replace(/[\\%_]/g, '\\$&')}%`);
      const page = await rows.orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id' }]).offset(query.offset).limit(query.limit + 1);
      return { datasets: page.slice(0, query.limit), hasNextPage: page.length > query.limit };
    },

    async create(ctx: RequestContext, input: { name: string; description: string | null; projectId?: string | undefined }): Promise<Dataset> {
      const projectId = await deps.organizations.resolveProject(ctx.organizationId, input.projectId ? { id: input.projectId } : ctx.project);
      await assertNameFree(ctx, projectId, input.name);
      return Dataset.query(db)
        .insert({ id: newId('dataset'), organizationId: ctx.organizationId, projectId, name: input.name, description: input.description })
        .returning('*');
    },

    async update(ctx: RequestContext, id: string, patch: { name?: string | undefined; description?: string | null | undefined }): Promise<Dataset> {
      const dataset = await find(ctx, id);
      if (patch.name !== undefined) await assertNameFree(ctx, dataset.projectId, patch.name, id);
      return dataset.$query(db).patchAndFetch({
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
      });
    },

    /** Refused while a run of the dataset is still going: its workflow reads the items. */
    async delete(ctx: RequestContext, id: string): Promise<void> {
      const dataset = await find(ctx, id);
      const running = await DatasetRun.query(db).forOrg(ctx.organizationId).findOne({ datasetId: id, status: 'running' });
      if (running) throw conflict(`Dataset '${dataset.name}' has a run in progress`);
      await dataset.$query(db).delete();
    },

    async listItems(ctx: RequestContext, datasetId: string, page: { offset: number; limit: number }) {
      await find(ctx, datasetId);
      const rows = await DatasetItem.query(db)
        .forOrg(ctx.organizationId)
        .where({ datasetId })
        .orderBy([{ column: 'createdAt' }, { column: 'id' }])
        .offset(page.offset)
        .limit(page.limit + 1);
      const total = await DatasetItem.query(db).forOrg(ctx.organizationId).where({ datasetId }).resultSize();
      return { items: rows.slice(0, page.limit), hasNextPage: rows.length > page.limit, total };
    },

    getItem: findItem,

    async createItem(ctx: RequestContext, datasetId: string, fields: DatasetItemFields): Promise<DatasetItem> {
      await find(ctx, datasetId);
      const [item] = await insertItems(ctx, datasetId, [fields]);
      return item!;
    },

    async updateItem(ctx: RequestContext, datasetId: string, itemId: string, patch: Partial<z.infer<typeof DatasetItemLine>>): Promise<DatasetItem> {
      const item = await findItem(ctx, datasetId, itemId);
      const fields = itemFields({
        createMessage: patch.createMessage ?? item.createMessage,
        expectedAnswer: patch.expectedAnswer !== undefined ? patch.expectedAnswer : item.expectedAnswer,
        scorer: patch.scorer !== undefined ? patch.scorer : patch.expectedAnswer !== undefined || patch.graderNote !== undefined ? undefined : item.scorer,
        graderNote: patch.graderNote !== undefined ? patch.graderNote : item.graderNote,
      });
      return item.$query(db).patchAndFetch(fields);
    },

    async deleteItem(ctx: RequestContext, datasetId: string, itemId: string): Promise<void> {
      const item = await findItem(ctx, datasetId, itemId);
      await item.$query(db).delete();
    },

    /**
     * Adds the items of a JSONL text (one item per line, blank lines skipped), all or none: a bad line is refused
     * with its number.
     */
    async importItems(ctx: RequestContext, datasetId: string, jsonl: string): Promise<DatasetItem[]> {
      await find(ctx, datasetId);
      const items: DatasetItemFields[] = [];
      for (const [index, line] of jsonl.split(/\r?\n/).entries()) {
        if (line.trim() === '') continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          throw validation(`Line ${index + 1} is not JSON`);
        }
        const checked = DatasetItemLine.safeParse(parsed);
        if (!checked.success) {
          const issue = checked.error.issues[0]!;
          throw validation(`Line ${index + 1}: ${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`);
        }
        try {
          items.push(itemFields(checked.data));
        } catch (error) {
          throw error instanceof ConsoleError ? validation(`Line ${index + 1}: ${error.message}`) : error;
        }
        if (items.length > MAX_DATASET_ITEMS) throw tooManyItems();
      }
      if (items.length === 0) throw validation('The file holds no items');
      return insertItems(ctx, datasetId, items);
    },

    /** Every item as one JSON line, in the dataset's order; importing it gives the same items. */
    async exportItems(ctx: RequestContext, datasetId: string): Promise<{ dataset: Dataset; jsonl: string }> {
      const dataset = await find(ctx, datasetId);
      const items = await DatasetItem.query(db).forOrg(ctx.organizationId).where({ datasetId }).orderBy([{ column: 'createdAt' }, { column: 'id' }]);
      const lines = items.map((item) =>
        JSON.stringify({
          createMessage: item.createMessage,
          ...(item.expectedAnswer !== null ? { expectedAnswer: item.expectedAnswer } : {}),
          ...(item.scorer !== null ? { scorer: item.scorer } : {}),
          ...(item.graderNote !== null ? { graderNote: item.graderNote } : {}),
        }),
      );
      return { dataset, jsonl: lines.length ? `${lines.join('\n')}\n` : '' };
    },

    /**
     * Runs every item against a saved template version (`name:version`): one hidden agent per item from the version,
     * then the run's workflow. Memory variables fill the version's variables for every item's agent.
     */
    async startRun(
      ctx: RequestContext,
      datasetId: string,
      input: { templateVersion: string; concurrency: number; memoryVariables: Record<string, string> },
    ): Promise<DatasetRunView> {
      const dataset = await find(ctx, datasetId);
      const ref = await deps.templates.resolveVersion(ctx, input.templateVersion);
      if (!ref.version) throw new UnprocessableError(['body', 'templateVersion'], 'A dataset runs against a saved version');
      const items = await DatasetItem.query(db).forOrg(ctx.organizationId).where({ datasetId }).orderBy([{ column: 'createdAt' }, { column: 'id' }]).select('id');
      if (items.length === 0) throw validation('The dataset has no items to run');
      const runId = newId('datasetRun');
      const agentIds = await deps.templates.createHiddenAgents(ctx, `${ref.template.name}:${ref.version.version}`, {
        // Agent names allow letters, digits, dashes and underscores, as template names do.
        names: items.map((_, index) => `eval-${ref.template.name}-v${ref.version!.version}-item-${index + 1}`),
        memoryVariables: input.memoryVariables,
      });
      const run = await db.transaction(async (trx) => {
        const inserted = await DatasetRun.query(trx).insert({
          id: runId,
          organizationId: ctx.organizationId,
          datasetId,
          templateId: ref.template.id,
          templateVersionId: ref.version!.id,
          status: 'running',
          concurrency: input.concurrency,
          itemCount: items.length,
          startedAt: new Date(),
        });
        const rows = items.map((item, index) => ({
          datasetRunId: runId,
          itemId: item.id,
          organizationId: ctx.organizationId,
          agentId: agentIds[index]!,
          status: 'pending' as const,
        }));
        for (let start = 0; start < rows.length; start += 500) await DatasetRunResult.query(trx).insert(rows.slice(start, start + 500));
        return inserted;
      });
      await deps.runs.start({ organizationId: ctx.organizationId, datasetRunId: runId, concurrency: input.concurrency });
      return runView(ctx, run);
    },

    async listRuns(ctx: RequestContext, datasetId: string): Promise<DatasetRunView[]> {
      await find(ctx, datasetId);
      const runs = await DatasetRun.query(db).forOrg(ctx.organizationId).where({ datasetId }).orderBy([{ column: 'startedAt', order: 'desc' }, { column: 'id' }]).limit(100);
      const views: DatasetRunView[] = [];
      for (const run of runs) views.push(await runView(ctx, run));
      return views;
    },

    async getRun(ctx: RequestContext, runId: string): Promise<{ view: DatasetRunView; results: DatasetRunResult[] }> {
      const run = await findRun(ctx, runId);
      return { view: await runView(ctx, run), results: await resultsOf(ctx, run.id) };
    },

    /** Two runs of one dataset item by item, with each run's summary: items only one of them ran show on its side alone. */
    async compareRuns(ctx: RequestContext, baseRunId: string, otherRunId: string) {
      const [base, other] = [await findRun(ctx, baseRunId), await findRun(ctx, otherRunId)];
      if (base.datasetId !== other.datasetId) throw validation('Only runs of one dataset can be compared');
      const [baseResults, otherResults] = [await resultsOf(ctx, base.id), await resultsOf(ctx, other.id)];
      const items = await DatasetItem.query(db).forOrg(ctx.organizationId).where({ datasetId: base.datasetId }).orderBy([{ column: 'createdAt' }, { column: 'id' }]);
      const byItem = (results: DatasetRunResult[]) => new Map(results.map((result) => [result.itemId, result]));
      const [baseByItem, otherByItem] = [byItem(baseResults), byItem(otherResults)];
      const known = new Set([...baseByItem.keys(), ...otherByItem.keys()]);
      return {
        base: { view: await runView(ctx, base), summary: summarize(baseResults) },
        other: { view: await runView(ctx, other), summary: summarize(otherResults) },
        rows: items
          .filter((item) => known.has(item.id))
          .map((item) => ({ item, base: baseByItem.get(item.id) ?? null, other: otherByItem.get(item.id) ?? null })),
      };
    },
  };
}

export type DatasetService = ReturnType<typeof createDatasetService>;
