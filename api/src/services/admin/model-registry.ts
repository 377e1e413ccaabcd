import { randomUUID } from 'node:crypto';
import { UniqueViolationError } from 'objection';
import { EmbeddingModel, InferenceModel, ModelStepCost, type Database, type ModelTier, type RegisteredModel, type StepCostEntry } from '@engram/db';
import { ConflictError, NotFoundError, UnprocessableError } from '../../errors.js';
import { containing, type OffsetPage } from './admin-organizations.js';

export type ModelKind = 'inference' | 'embedding';

export type ModelInput = { modelName: string; modelEndpoint: string };

export type ModelPatch = {
  name?: string | undefined;
  brand?: string | undefined;
  modelEndpoint?: string | undefined;
  config?: Record<string, unknown> | undefined;
  defaultRequestsPerMinutePerOrganization?: number | undefined;
  defaultTokensPerMinutePerOrganization?: number | undefined;
  defaultContextWindow?: number | null | undefined;
  isRecommended?: boolean | undefined;
  tier?: ModelTier | undefined;
  tag?: string | null | undefined;
  /** true disables the model for new runs; false enables it again. */
  disabled?: boolean | undefined;
};

/** Defaults of a newly registered model, until an admin changes them. */
export const DEFAULT_REQUESTS_PER_MINUTE = 500;
export const DEFAULT_TOKENS_PER_MINUTE = 200_000;

/** Both registries share their columns (inference models add step costs). */
const modelClass = (kind: ModelKind): typeof RegisteredModel => (kind === 'inference' ? InferenceModel : EmbeddingModel);

/** `openai/gpt-4o-mini` → `openai`: the provider part of a handle names the brand. */
function brandOf(modelName: string): string {
  return modelName.includes('/') ? modelName.split('/')[0]! : 'custom';
}

/** The platform's model registry (spec 000 §3): admins register, tune, disable and delete models. */
export function createModelRegistryService(deps: { db: Database }) {
  const { db } = deps;

  async function find(kind: ModelKind, modelId: string): Promise<RegisteredModel> {
    const model = await modelClass(kind).query(db).findById(modelId);
    if (!model) throw new NotFoundError(kind === 'inference' ? 'Inference model' : 'Embedding model');
    return model;
  }

  async function findInference(modelId: string): Promise<InferenceModel> {
    const model = await InferenceModel.query(db).findById(modelId);
    if (!model) throw new NotFoundError('Inference model');
    return model;
  }

  function uniqueName<T>(work: () => Promise<T>): Promise<T> {
    return work().catch((error: unknown) => {
      if (error instanceof UniqueViolationError) throw new ConflictError('A model with this name is already registered');
      throw error;
    });
  }

  return {
    async list(kind: ModelKind, page: OffsetPage): Promise<{ models: Array<RegisteredModel>; hasNextPage: boolean }> {
      const query = modelClass(kind).query(db).orderBy('name');
      if (page.search) query.whereILike('name', containing(page.search));
      const rows = await query.offset(page.offset).limit(page.limit + 1);
      return { models: rows.slice(0, page.limit), hasNextPage: rows.length > page.limit };
    },

    get: find,

    async create(kind: ModelKind, input: ModelInput): Promise<RegisteredModel> {
      return uniqueName(async () =>
        modelClass(kind)
          .query(db)
          .insert({
            id: randomUUID(),
            name: input.modelName,
            brand: brandOf(input.modelName),
            modelEndpoint: input.modelEndpoint,
            defaultRequestsPerMinutePerOrganization: DEFAULT_REQUESTS_PER_MINUTE,
            defaultTokensPerMinutePerOrganization: DEFAULT_TOKENS_PER_MINUTE,
          })
          .returning('*'),
      );
    },

    async update(kind: ModelKind, modelId: string, patch: ModelPatch): Promise<RegisteredModel> {
      const model = await find(kind, modelId);
      const { disabled, ...fields } = patch;
      const changes: Partial<RegisteredModel> = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
      if (disabled !== undefined) changes.disabledAt = disabled ? (model.disabledAt ?? new Date()) : null;
      return uniqueName(async () => model.$query(db).patchAndFetch(changes));
    },

    async delete(kind: ModelKind, modelId: string): Promise<void> {
      if ((await modelClass(kind).query(db).deleteById(modelId)) === 0) throw new NotFoundError(kind === 'inference' ? 'Inference model' : 'Embedding model');
    },

    /** What a step of the model costs (billing's step-cost table, which metering reads); the `*` row until it has its own. */
    async stepCosts(modelId: string): Promise<StepCostEntry[]> {
      const model = await findInference(modelId);
      const row = (await ModelStepCost.query(db).findById(model.name)) ?? (await ModelStepCost.query(db).findById('*'));
      return row?.costs ?? [];
    },

    /** Replaces the model's step costs; context-window bounds must be distinct and are kept ascending. */
    async setStepCosts(modelId: string, stepCosts: StepCostEntry[]): Promise<StepCostEntry[]> {
      const model = await findInference(modelId);
      const sorted = [...stepCosts].sort((a, b) => a.maxContextWindowSize - b.maxContextWindowSize);
      if (new Set(sorted.map((row) => row.maxContextWindowSize)).size !== sorted.length) {
        throw new UnprocessableError(['body', 'data'], 'Each maxContextWindowSize may appear once');
      }
      await ModelStepCost.query(db)
        .insert({ model: model.name, modelTier: model.tier, version: 1, costs: sorted })
        .onConflict('model')
        .merge(['costs', 'modelTier', 'updatedAt'] as never);
      return sorted;
    },
  };
}

export type ModelRegistryService = ReturnType<typeof createModelRegistryService>;
