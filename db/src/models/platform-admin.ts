import { BaseModel, TenantModel } from './base-model.js';

export type ModelTier = 'free' | 'premium' | 'per-inference';

/** A model of the platform's registry (spec 000 §3), which admins may disable and give default rate limits. */
export class RegisteredModel extends BaseModel {
  static override jsonAttributes = ['config'];
  declare id: string;
  declare name: string;
  declare brand: string;
  declare modelEndpoint: string;
  declare config: Record<string, unknown>;
  declare defaultRequestsPerMinutePerOrganization: number;
  declare defaultTokensPerMinutePerOrganization: number;
  declare defaultContextWindow: number | null;
  declare isRecommended: boolean;
  declare tier: ModelTier;
  declare tag: string | null;
  declare disabledAt: Date | null;
}

export class InferenceModel extends RegisteredModel {
  static override tableName = 'inference_models';
}

export class EmbeddingModel extends RegisteredModel {
  static override tableName = 'embedding_models';
}

/** An admin's override of a model's default rate limits for one organization. */
export class OrganizationModelRateLimit extends TenantModel {
  static override tableName = 'organization_model_rate_limits';
  static override idColumn = ['organizationId', 'model'];
  declare model: string;
  declare requestsPerMinute: number;
  declare tokensPerMinute: number;
}

export class ContentViolation extends TenantModel {
  static override tableName = 'content_violations';
  declare id: string;
  declare reasons: string[];
  declare content: string;
  declare flaggedAt: Date;
}

/** An address allowed in while sign-ups are restricted. */
export class WhitelistedEmail extends BaseModel {
  static override tableName = 'whitelisted_emails';
  declare id: string;
  declare email: string;
}

/** Users with an email on `domain` sign in through this organization's identity provider. */
export class SsoConfiguration extends TenantModel {
  static override tableName = 'sso_configurations';
  declare id: string;
  declare domain: string;
  declare workosOrganizationId: string;
}
