import { graderPrompt, parseGrade, platformRunRequest, scoreAnswer, spokenText, storedToolReturns, type ModelSettings, type StoredMessage } from '@engram/core';
import {
  Agent,
  DatasetItem,
  DatasetRun,
  DatasetRunResult,
  Message,
  Run,
  Step,
  insertQueuedRun,
  type Database,
  type SecretBox,
} from '@engram/db';
import { createModelClient, providerFor, type BaseProviderConfig } from '@engram/integrations/llm';
import type { EgressPolicy } from '@engram/integrations/egress';

export type DatasetDeps = { db: Database; baseProviders: BaseProviderConfig[]; secrets: SecretBox; egress: Pick<EgressPolicy, 'fetchFor'> };

type RunRef = { organizationId: string; datasetRunId: string };
type ItemRef = RunRef & { itemId: string };

export type DispatchedDatasetItem = { runId: string; agentId: string; maxSteps: number; runType: string } | { runId: null };

const RUN_TYPE = 'dataset_run';
const FINISHED = new Set(['completed', 'failed', 'cancelled']);

/** The grader's answer is a verdict and a sentence. */
const GRADER_MAX_TOKENS = 200;

/** The dataset run workflow's I/O: dispatching items as runs of their agents, recording what each run did, and scoring it. */
export function createDatasetActivities(deps: DatasetDeps) {
  const { db } = deps;

  async function resultOf(ref: ItemRef): Promise<DatasetRunResult | undefined> {
    return DatasetRunResult.query(db).forOrg(ref.organizationId).findOne({ datasetRunId: ref.datasetRunId, itemId: ref.itemId });
  }

  /** What the item's run did: its answer, time from queueing to the end, steps, tokens, credits charged and failed tool calls. */
  async function measure(organizationId: string, run: Run) {
    const messages = (await Message.query(db).forOrg(organizationId).where({ runId: run.id }).orderBy('sequence')) as unknown as StoredMessage[];
    const steps = await Step.query(db).forOrg(organizationId).where({ runId: run.id }).select('id', 'promptTokens', 'completionTokens', 'totalTokens');
    const stepIds = steps.map((step) => step.id);
    const [charged] = stepIds.length
      ? ((await db('transactions').where({ organization_id: organizationId, type: 'subtraction' }).whereIn('step_id', stepIds).sum({ cost: 'amount' })) as Array<{
          cost: string | null;
        }>)
      : [{ cost: '0' }];
    const request = run.request as { assistantMessageToolName?: string; assistantMessageToolKwarg?: string };
    const assistantTool = { name: request.assistantMessageToolName ?? 'send_message', kwarg: request.assistantMessageToolKwarg ?? 'message' };
    const sum = (key: 'promptTokens' | 'completionTokens' | 'totalTokens') => steps.reduce((total, step) => total + Number(step[key] ?? 0), 0);
    return {
      answer: messages
        .map((message) => spokenText(message, assistantTool))
        .filter((text) => text !== '')
        .join('\n'),
      latencyMs: run.completedAt ? Math.max(0, run.completedAt.getTime() - run.createdAt.getTime()) : null,
      steps: steps.length,
      promptTokens: sum('promptTokens'),
      completionTokens: sum('completionTokens'),
      totalTokens: sum('totalTokens'),
      cost: Number(charged?.cost ?? 0),
      toolErrors: messages.reduce((count, message) => count + storedToolReturns(message).filter((toolReturn) => toolReturn.status === 'error').length, 0),
    };
  }

  return {
    /** The items not dispatched yet, in the dataset's order; the run is marked running. */
    async loadDatasetRunPlan(ref: RunRef): Promise<string[]> {
      const rows = await DatasetRunResult.query(db)
        .forOrg(ref.organizationId)
        .join('dataset_items', 'dataset_items.id', 'dataset_run_results.item_id')
        .where({ 'dataset_run_results.dataset_run_id': ref.datasetRunId, 'dataset_run_results.status': 'pending' })
        .orderBy([{ column: 'dataset_items.created_at' }, { column: 'dataset_items.id' }])
        .select('dataset_run_results.item_id');
      return rows.map((row) => row.itemId);
    },

    /** Records the item's run on its agent (once: a retry finds the run it made). */
    async dispatchDatasetItem(ref: ItemRef): Promise<DispatchedDatasetItem> {
      return db.transaction(async (trx) => {
        const result = await DatasetRunResult.query(trx).forOrg(ref.organizationId).findOne({ datasetRunId: ref.datasetRunId, itemId: ref.itemId }).forUpdate();
        if (!result || !result.agentId) return { runId: null };
        const request = platformRunRequest([]);
        if (result.runId) return { runId: result.runId, agentId: result.agentId, maxSteps: request.maxSteps, runType: RUN_TYPE };
        if (result.status !== 'pending') return { runId: null };
        const item = await DatasetItem.query(trx).forOrg(ref.organizationId).findById(ref.itemId);
        const fail = async (error: string) => {
          await DatasetRunResult.query(trx).forOrg(ref.organizationId).where({ datasetRunId: ref.datasetRunId, itemId: ref.itemId }).patch({
            status: 'failed',
            error,
            completedAt: new Date(),
          });
          return { runId: null };
        };
        if (!item) return fail('The item was deleted before its turn');
        const run = await insertQueuedRun(trx, {
          organizationId: ref.organizationId,
          agentId: result.agentId,
          request: platformRunRequest([{ type: 'message', role: item.createMessage.role, content: item.createMessage.content }]),
          runType: RUN_TYPE,
          callbackUrl: null,
          metadata: { dataset_run_id: ref.datasetRunId, dataset_item_id: ref.itemId },
        });
        if (!run) return fail("The item's agent was deleted before its turn");
        await DatasetRunResult.query(trx)
          .forOrg(ref.organizationId)
          .where({ datasetRunId: ref.datasetRunId, itemId: ref.itemId })
          .patch({ runId: run.id, status: 'running' });
        return { runId: run.id, agentId: result.agentId, maxSteps: request.maxSteps, runType: RUN_TYPE };
      });
    },

    /**
     * Records what each finished item run did, and its exact or contains score. Returns the items recorded and
     * those that wait for the LLM grader (their status is `grading` until it answers).
     */
    async settleDatasetItems(input: RunRef & { itemIds: string[] }): Promise<{ recorded: string[]; toGrade: string[] }> {
      const recorded: string[] = [];
      const toGrade: string[] = [];
      const results = await DatasetRunResult.query(db).forOrg(input.organizationId).where({ datasetRunId: input.datasetRunId }).whereIn('itemId', input.itemIds);
      for (const result of results) {
        if (result.status === 'completed' || result.status === 'failed') {
          recorded.push(result.itemId);
          continue;
        }
        if (result.status === 'grading') {
          toGrade.push(result.itemId);
          continue;
        }
        const run = result.runId ? await Run.query(db).forOrg(input.organizationId).findById(result.runId) : undefined;
        if (run && !FINISHED.has(run.status)) continue;
        const item = await DatasetItem.query(db).forOrg(input.organizationId).findById(result.itemId);
        const where = { datasetRunId: input.datasetRunId, itemId: result.itemId };
        if (!run) {
          await DatasetRunResult.query(db).forOrg(input.organizationId).where(where).patch({ status: 'failed', error: "The item's run was deleted", completedAt: new Date() });
          recorded.push(result.itemId);
          continue;
        }
        const measured = await measure(input.organizationId, run);
        const succeeded = run.status === 'completed';
        const scorer = item?.scorer ?? null;
        const score = succeeded && item?.expectedAnswer != null && (scorer === 'exact' || scorer === 'contains') ? scoreAnswer(scorer, measured.answer, item.expectedAnswer) : null;
        const grades = succeeded && scorer === 'llm';
        await DatasetRunResult.query(db)
          .forOrg(input.organizationId)
          .where(where)
          .patch({
            ...measured,
            status: grades ? 'grading' : succeeded ? 'completed' : 'failed',
            error: succeeded ? null : `The run ended ${run.status}${run.stopReason ? ` (${run.stopReason})` : ''}`,
            ...(score ? { score: score.score, scoreReason: score.reason } : {}),
            completedAt: grades ? null : new Date(),
          });
        (grades ? toGrade : recorded).push(result.itemId);
      }
      return { recorded, toGrade };
    },

    /** Asks the item agent's model whether the answer passes, and records the score. */
    async gradeDatasetItem(ref: ItemRef): Promise<void> {
      const result = await resultOf(ref);
      if (!result || result.status !== 'grading') return;
      const item = await DatasetItem.query(db).forOrg(ref.organizationId).findById(ref.itemId);
      const agent = result.agentId ? await Agent.query(db).forOrg(ref.organizationId).findById(result.agentId) : undefined;
      const where = { datasetRunId: ref.datasetRunId, itemId: ref.itemId };
      if (!item || !agent) {
        await DatasetRunResult.query(db).forOrg(ref.organizationId).where(where).patch({ status: 'completed', scoreReason: 'Nothing left to grade with', completedAt: new Date() });
        return;
      }
      const prompt = graderPrompt({ question: item.createMessage.content, answer: result.answer ?? '', expected: item.expectedAnswer, note: item.graderNote });
      const settings = { ...(agent.llmConfig as unknown as ModelSettings), temperature: 0, max_tokens: GRADER_MAX_TOKENS };
      const client = createModelClient(await providerFor(deps, ref.organizationId, settings));
      const turn = await client.complete(
        {
          settings,
          messages: [
            { role: 'system', content: prompt.system },
            { role: 'user', content: prompt.user },
          ],
          tools: [],
          toolChoice: 'none',
          parallelToolCalls: false,
          stream: false,
        },
        {},
      );
      const grade = parseGrade(turn.text ?? '');
      await DatasetRunResult.query(db)
        .forOrg(ref.organizationId)
        .where(where)
        .patch({ status: 'completed', score: grade.score, scoreReason: grade.reason, completedAt: new Date() });
    },

    /** Closes the run once every item is recorded. */
    async finishDatasetRun(ref: RunRef): Promise<void> {
      await DatasetRun.query(db).forOrg(ref.organizationId).findById(ref.datasetRunId).where('status', 'running').patch({ status: 'completed', completedAt: new Date() });
    },
  };
}

export type DatasetActivities = ReturnType<typeof createDatasetActivities>;
