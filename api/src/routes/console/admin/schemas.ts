import { z } from 'zod';
import type { Organization, RegisteredModel, User } from '@engram/db';
import { iso } from '../schemas.js';

const isoOrNull = (date: Date | null) => (date ? iso(date) : null);

export const OrganizationParams = z.object({ organizationId: z.string() });
export const UserParams = z.object({ userId: z.string() });

/** Spec 000 §3: an organization plus what admins see of it ({product}AgentsId, bannedAt, enabledCloudAt). */
export const AdminOrganizationSchema = z.object({
  id: z.string(),
  name: z.string(),
  isAdmin: z.boolean(),
  billingTier: z.string(),
  lettaAgentsId: z.string(),
  bannedAt: z.string().nullable(),
  enabledCloudAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const adminOrganizationWire = (organization: Organization): z.infer<typeof AdminOrganizationSchema> => ({
  id: organization.id,
  name: organization.name,
  isAdmin: organization.isAdmin,
  billingTier: organization.billingTier,
  // The organization's id on the agent API (`/v1`), which is the same id here.
  lettaAgentsId: organization.id,
  bannedAt: isoOrNull(organization.bannedAt),
  enabledCloudAt: isoOrNull(organization.enabledCloudAt),
  createdAt: iso(organization.createdAt),
  updatedAt: iso(organization.updatedAt),
});

export const AdminUserSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  imageUrl: z.string(),
  permissions: z.array(z.string()),
  activeOrganizationId: z.string().nullable(),
  isVerified: z.boolean(),
  createdAt: z.string(),
});

export const adminUserWire = (user: User): z.infer<typeof AdminUserSchema> => ({
  id: user.id,
  name: user.name,
  email: user.email,
  imageUrl: user.imageUrl,
  permissions: user.permissions,
  activeOrganizationId: user.activeOrganizationId,
  isVerified: user.emailVerifiedAt !== null,
  createdAt: iso(user.createdAt),
});

export const ModelTierSchema = z.enum(['free', 'premium', 'per-inference']);

/** Spec 000 §3: an inference or embedding model of the registry. */
export const RegisteredModelSchema = z.object({
  id: z.string(),
  name: z.string(),
  brand: z.string(),
  modelEndpoint: z.string(),
  config: z.record(z.string(), z.unknown()),
  defaultRequestsPerMinutePerOrganization: z.number(),
  defaultTokensPerMinutePerOrganization: z.number(),
  defaultContextWindow: z.number().nullable(),
  isRecommended: z.boolean(),
  tier: ModelTierSchema,
  tag: z.string().nullable(),
  disabledAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const registeredModelWire = (model: RegisteredModel): z.infer<typeof RegisteredModelSchema> => ({
  id: model.id,
  name: model.name,
  brand: model.brand,
  modelEndpoint: model.modelEndpoint,
  config: model.config,
  defaultRequestsPerMinutePerOrganization: model.defaultRequestsPerMinutePerOrganization,
  defaultTokensPerMinutePerOrganization: model.defaultTokensPerMinutePerOrganization,
  defaultContextWindow: model.defaultContextWindow,
  isRecommended: model.isRecommended,
  tier: model.tier,
  tag: model.tag,
  disabledAt: isoOrNull(model.disabledAt),
  createdAt: iso(model.createdAt),
  updatedAt: iso(model.updatedAt),
});

export const StepCostsSchema = z.object({
  version: z.literal('1'),
  data: z.array(z.object({ maxContextWindowSize: z.number().int().positive(), cost: z.number().nonnegative() })),
});

/** Spec 000 §5: rate-limit overrides are positive integers. */
export const RateLimitSchema = z.object({
  model: z.string(),
  requestsPerMinute: z.number().int().positive(),
  tokensPerMinute: z.number().int().positive(),
});
