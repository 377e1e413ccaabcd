import { sendJson } from '@engram/console-kit';

/** The admin area's calls (`/api/admin/*`); the shell lists this remote to platform admins only. */
const ADMIN = '/api/admin';

export type AdminOrganization = {
  id: string;
  name: string;
  billingTier: string;
  bannedAt: string | null;
  createdAt: string;
};

export type AdminUser = { id: string; name: string; email: string | null; permissions: string[]; createdAt: string };

export type AdminMember = AdminUser & { role: string; joinedAt: string };

export type OrganizationStatistics = { members: number; projects: number; agents: number; apiKeys: number; runsLast30Days: number; activeRuns: number };

export type RegisteredModel = { id: string; name: string; brand: string; modelEndpoint: string; tier: string; disabledAt: string | null };

export type GiftCode = {
  id: string;
  name: string;
  code: string;
  description: string;
  redemptionAmount: number;
  maxUses: number | null;
  uses: number;
  disabledAt: string | null;
};

export type GiftCodeRedemption = { organizationId: string; organizationName: string; code: string; amount: number; redeemedAt: string };

export type OAuthApp = { id: string; name: string; clientId: string; clientSecret: string | null; isPublicClient: boolean; grantTypes: string[] };

export type WhitelistedEmail = { id: string; email: string };

export type ContentViolation = { id: string; organizationName: string; reasons: string[]; content: string; flaggedAt: string };

export type StepCost = { maxContextWindowSize: number; cost: number };

export type BillingSettings = { billingTier: 'free' | 'pro' | 'scale' | 'enterprise'; pricingModel: 'prepay' | 'cpm' };

export type BillingMethod = {
  billingMethod: 'stripe_managed' | 'enterprise';
  stripeCustomerId: string | null;
  defaultPaymentMethodId: string | null;
  refreshedAt: string | null;
};

export type ReferralConfiguration = { referrerRewardAmount: number; referredRewardAmount: number; maxReferralRewardPerOrg: number; enabled: boolean };

const organization = (id: string) => `${ADMIN}/organizations/${encodeURIComponent(id)}`;

export const adminApi = {
  organizations: (search: string) => sendJson<{ organizations: AdminOrganization[] }>(`${ADMIN}/organizations`, { query: { search, limit: 50 } }),
  organization: (id: string) => sendJson<AdminOrganization>(organization(id)),
  members: (id: string) => sendJson<{ users: AdminMember[] }>(`${organization(id)}/users`),
  statistics: (id: string) => sendJson<OrganizationStatistics>(`${organization(id)}/statistics`),
  credits: (id: string) => sendJson<{ credits: number }>(`${organization(id)}/credits`),
  changeCredits: (id: string, direction: 'add' | 'remove', amount: number) =>
    sendJson<{ credits: number }>(`${organization(id)}/${direction}-credits`, { method: 'POST', json: { amount } }),
  ban: (id: string) => sendJson<AdminOrganization & { cancelledRuns: number }>(`${organization(id)}/ban`, { method: 'POST' }),
  unban: (id: string) => sendJson<AdminOrganization>(`${organization(id)}/unban`, { method: 'POST' }),
  billingSettings: (id: string) => sendJson<BillingSettings>(`${organization(id)}/billing-settings`),
  setBillingSettings: (id: string, settings: BillingSettings) => sendJson<BillingSettings>(`${organization(id)}/billing-settings`, { method: 'PUT', json: settings }),
  billingMethod: (id: string) => sendJson<BillingMethod>(`${organization(id)}/billing-method`),
  setBillingMethod: (id: string, billingMethod: BillingMethod['billingMethod']) =>
    sendJson<BillingMethod>(`${organization(id)}/billing-method`, { method: 'PUT', json: { billingMethod } }),
  refreshBillingMethod: (id: string) => sendJson<BillingMethod>(`${organization(id)}/billing-method/refresh`, { method: 'POST' }),

  users: (search: string) => sendJson<{ users: AdminUser[] }>(`${ADMIN}/users`, { query: { search, limit: 50 } }),

  models: () => sendJson<{ models: RegisteredModel[] }>(`${ADMIN}/models/inference`, { query: { limit: 100 } }),
  registerModel: (modelName: string, modelEndpoint: string) =>
    sendJson<RegisteredModel>(`${ADMIN}/models/inference`, { method: 'POST', json: { modelName, modelEndpoint } }),
  setModelDisabled: (id: string, disabled: boolean) =>
    sendJson<RegisteredModel>(`${ADMIN}/models/inference/${encodeURIComponent(id)}`, { method: 'PATCH', json: { disabled } }),
  stepCosts: (id: string) => sendJson<{ version: '1'; data: StepCost[] }>(`${ADMIN}/models/inference/${encodeURIComponent(id)}/step-costs`),
  setStepCosts: (id: string, data: StepCost[]) =>
    sendJson<{ version: '1'; data: StepCost[] }>(`${ADMIN}/models/inference/${encodeURIComponent(id)}/step-costs`, { method: 'PATCH', json: { version: '1', data } }),

  giftCodes: () => sendJson<{ giftCodes: GiftCode[] }>(`${ADMIN}/gift-codes`),
  createGiftCode: (input: { name: string; code: string; description: string; redemptionAmount: number }) =>
    sendJson<GiftCode>(`${ADMIN}/gift-codes`, { method: 'POST', json: input }),
  redemptions: (id: string) => sendJson<{ redemptions: GiftCodeRedemption[] }>(`${ADMIN}/gift-codes/${encodeURIComponent(id)}/redemptions`),
  setGiftCodeEnabled: (id: string, enabled: boolean) =>
    sendJson<GiftCode>(`${ADMIN}/gift-codes/${encodeURIComponent(id)}/${enabled ? 'enable' : 'disable'}`, { method: 'POST' }),

  referralConfiguration: () => sendJson<ReferralConfiguration>(`${ADMIN}/referral-configuration`),
  setReferralConfiguration: (changes: Partial<ReferralConfiguration>) =>
    sendJson<ReferralConfiguration>(`${ADMIN}/referral-configuration`, { method: 'PATCH', json: changes }),

  oauthApps: () => sendJson<{ apps: OAuthApp[] }>(`${ADMIN}/oauth-apps`),
  regenerateSecret: (id: string) => sendJson<OAuthApp>(`${ADMIN}/oauth-apps/${encodeURIComponent(id)}/regenerate-secret`, { method: 'POST' }),

  whitelistedEmails: () => sendJson<{ emails: WhitelistedEmail[] }>(`${ADMIN}/whitelisted-emails`, { query: { limit: 100 } }),
  whitelistEmail: (email: string) => sendJson<WhitelistedEmail>(`${ADMIN}/whitelisted-emails`, { method: 'POST', json: { email } }),
  removeWhitelistedEmail: (id: string) => sendJson<unknown>(`${ADMIN}/whitelisted-emails/${encodeURIComponent(id)}`, { method: 'DELETE' }),

  contentViolations: (page: number) => sendJson<{ violations: ContentViolation[]; hasNextPage: boolean }>(`${ADMIN}/content-violations`, { query: { page } }),
};

export const adminKeys = {
  all: ['admin'] as const,
  organizations: (search: string) => ['admin', 'organizations', search] as const,
  organization: (id: string) => ['admin', 'organization', id] as const,
  users: (search: string) => ['admin', 'users', search] as const,
  models: ['admin', 'models'] as const,
  stepCosts: (id: string) => ['admin', 'models', id, 'step-costs'] as const,
  giftCodes: ['admin', 'gift-codes'] as const,
  redemptions: (id: string) => ['admin', 'gift-codes', id, 'redemptions'] as const,
  referrals: ['admin', 'referrals'] as const,
  oauthApps: ['admin', 'oauth-apps'] as const,
  whitelist: ['admin', 'whitelist'] as const,
  violations: (page: number) => ['admin', 'violations', page] as const,
};
