import { Provider, newId, type Database, type SecretBox } from '@engram/db';
import { UniqueViolationError } from 'objection';
import { ConflictError, NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { keysetPage, type PageRequest } from '../shared/paging.js';
import { checkProviderKey, requireConnectionFields } from './provider-models.js';
import { assertReachableUrl, type UrlGate } from '../shared/egress.js';
import type { EgressPolicy } from '@engram/integrations/egress';
import type { BaseProvider, ProviderConnection } from './types.js';

export type ProviderFilter = { name?: string | undefined; providerType?: string | undefined };

export type CreateProviderInput = {
  name: string;
  provider_type: string;
  api_key: string;
  base_url?: string | null | undefined;
  access_key?: string | null | undefined;
  region?: string | null | undefined;
  api_version?: string | null | undefined;
};

export type UpdateProviderInput = Partial<Omit<CreateProviderInput, 'name' | 'provider_type'>>;

export type CheckProviderInput = Omit<CreateProviderInput, 'name'>;

/** A stored provider with its secrets opened, for masking on the wire. */
export type ProviderView = { provider: Provider; apiKey: string | null; accessKey: string | null };

export type ProviderServiceDeps = {
  db: Database;
  secrets: SecretBox;
  baseProviders: BaseProvider[];
  /** Organizations' own providers are checked when their base_url is given, and called through it. */
  egress: UrlGate & Pick<EgressPolicy, 'fetchFor'>;
};

export function createProviderService(deps: ProviderServiceDeps) {
  const { db, secrets } = deps;

  const open = (sealed: string | null) => (sealed === null ? null : secrets.decrypt(sealed));
  const seal = (plain: string | null | undefined) => (plain ? secrets.encrypt(plain) : null);
  const view = (provider: Provider): ProviderView => ({
    provider,
    apiKey: open(provider.apiKeyEnc),
    accessKey: open(provider.accessKeyEnc),
  });

  async function find(ctx: RequestContext, providerId: string): Promise<Provider> {
    const provider = await Provider.query(db).forOrg(ctx.organizationId).findById(providerId);
    if (!provider) throw new NotFoundError('Provider');
    return provider;
  }

  const baseConnection = (base: BaseProvider): ProviderConnection => ({
    id: null,
    name: base.name,
    providerType: base.providerType,
    providerCategory: 'base',
    apiKey: base.apiKey,
    baseUrl: base.baseUrl,
    accessKey: base.accessKey ?? null,
    sessionToken: base.sessionToken ?? null,
    region: base.region ?? null,
    apiVersion: base.apiVersion ?? null,
    project: base.project ?? null,
  });

  const byokConnection = (provider: Provider): ProviderConnection => ({
    id: provider.id,
    name: provider.name,
    providerType: provider.providerType,
    providerCategory: 'byok',
    apiKey: open(provider.apiKeyEnc),
    baseUrl: provider.baseUrl,
    accessKey: open(provider.accessKeyEnc),
    region: provider.region,
    apiVersion: provider.apiVersion,
    fetch: deps.egress.fetchFor({ organizationId: provider.organizationId }),
  });

  const assertBaseUrlReachable = async (ctx: RequestContext, baseUrl: string | null | undefined) => {
    if (baseUrl) await assertReachableUrl(deps.egress, ctx.organizationId, baseUrl, ['body', 'base_url']);
  };

  return {
    async list(ctx: RequestContext, filter: ProviderFilter, page: PageRequest): Promise<ProviderView[]> {
      const query = Provider.query(db).forOrg(ctx.organizationId);
      if (filter.name !== undefined) query.where('providers.name', filter.name);
      if (filter.providerType !== undefined) query.where('providers.provider_type', filter.providerType);
      return (await keysetPage(query, page, { table: 'providers' })).map(view);
    },

    async get(ctx: RequestContext, providerId: string): Promise<ProviderView> {
      return view(await find(ctx, providerId));
    },

    async create(ctx: RequestContext, input: CreateProviderInput): Promise<ProviderView> {
      requireConnectionFields(input);
      // The name is the handle prefix (`name/model`), so it must not shadow a base provider either.
      if (deps.baseProviders.some((base) => base.name === input.name)) {
        throw new ConflictError(`A base provider is already named '${input.name}'`);
      }
      await assertBaseUrlReachable(ctx, input.base_url);
      try {
        const provider = await Provider.query(db)
          .insert({
          id: newId('provider'),
          organizationId: ctx.organizationId,
          name: input.name,
          providerType: input.provider_type,
          providerCategory: 'byok',
          apiKeyEnc: seal(input.api_key),
          accessKeyEnc: seal(input.access_key),
          baseUrl: input.base_url ?? null,
          region: input.region ?? null,
          apiVersion: input.api_version ?? null,
          })
          .returning('*');
        return view(provider);
      } catch (error) {
        if (error instanceof UniqueViolationError) throw new ConflictError(`A provider named '${input.name}' already exists`);
        throw error;
      }
    },

    async update(ctx: RequestContext, providerId: string, input: UpdateProviderInput): Promise<ProviderView> {
      const provider = await find(ctx, providerId);
      await assertBaseUrlReachable(ctx, input.base_url);
      const updated = await provider.$query(db).patchAndFetch({
        ...(input.api_key !== undefined ? { apiKeyEnc: seal(input.api_key) } : {}),
        ...(input.access_key !== undefined ? { accessKeyEnc: seal(input.access_key) } : {}),
        ...(input.base_url !== undefined ? { baseUrl: input.base_url } : {}),
        ...(input.region !== undefined ? { region: input.region } : {}),
        ...(input.api_version !== undefined ? { apiVersion: input.api_version } : {}),
      });
      return view(updated);
    },

    async delete(ctx: RequestContext, providerId: string): Promise<void> {
      const deleted = await Provider.query(db).forOrg(ctx.organizationId).deleteById(providerId);
      if (deleted === 0) throw new NotFoundError('Provider');
    },

    /** Validates a key by listing the provider's models with it; throws what the provider said when it fails. */
    async check(ctx: RequestContext, input: CheckProviderInput): Promise<void> {
      await assertBaseUrlReachable(ctx, input.base_url);
      await checkProviderKey({
        name: input.provider_type,
        providerType: input.provider_type,
        providerCategory: 'byok',
        id: null,
        apiKey: input.api_key,
        baseUrl: input.base_url ?? null,
        accessKey: input.access_key ?? null,
        region: input.region ?? null,
        apiVersion: input.api_version ?? null,
        fetch: deps.egress.fetchFor({ organizationId: ctx.organizationId }),
      });
    },

    async checkStored(ctx: RequestContext, providerId: string): Promise<ProviderView> {
      const provider = await find(ctx, providerId);
      await checkProviderKey(byokConnection(provider));
      return view(provider);
    },

    /** Every provider the organization can use: the operator's base providers, then its own. */
    async connections(ctx: RequestContext, filter: ProviderFilter & { categories?: Array<'base' | 'byok'> | undefined } = {}) {
      const wanted = (connection: ProviderConnection) =>
        (filter.name === undefined || connection.name === filter.name) &&
        (filter.providerType === undefined || connection.providerType === filter.providerType) &&
        (filter.categories === undefined || filter.categories.includes(connection.providerCategory));
      const base = deps.baseProviders.map(baseConnection).filter(wanted);
      const byok =
        filter.categories !== undefined && !filter.categories.includes('byok')
          ? []
          : (await Provider.query(db).forOrg(ctx.organizationId).orderBy('created_at')).map(byokConnection).filter(wanted);
      return [...base, ...byok];
    },

    /** The provider a model handle's prefix names, or undefined. */
    async connectionNamed(ctx: RequestContext, name: string): Promise<ProviderConnection | undefined> {
      const base = deps.baseProviders.find((provider) => provider.name === name);
      if (base) return baseConnection(base);
      const byok = await Provider.query(db).forOrg(ctx.organizationId).findOne({ name });
      return byok ? byokConnection(byok) : undefined;
    },
  };
}

export type ProviderService = ReturnType<typeof createProviderService>;
