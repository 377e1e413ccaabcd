import { z } from 'zod';

const UNLIMITED = 'true when billing is off (a self-hosted deployment): steps are metered but nothing is ever refused';

/** `GET /v1/metadata/balance`, as Letta Code reads it (`letta usage`, its choice of sub-agent models). */
export const BalanceResponse = z
  .object({
    total_balance: z.number().describe("The organization's credit balance (may be below zero with billing off or invoiced usage)"),
    monthly_credit_balance: z.number().describe("The part of the balance the tier's monthly grant covers"),
    purchased_credit_balance: z.number().describe('The rest of the balance: purchased, gifted or added by an operator'),
    billing_tier: z.string().describe("The organization's tier (free, pro, scale, enterprise), or `self-hosted` when billing is off"),
    unlimited: z.boolean().describe(UNLIMITED),
    billing_period_end: z.string().describe('When the current billing period (a calendar month, UTC) ends'),
  })
  .meta({ id: 'BalanceMetadata' });

/** `GET /v1/metadata/user`: who the caller is (Letta Code tags its favourites with the id). */
export const CurrentUserResponse = z
  .object({ id: z.string(), name: z.string(), email: z.string().nullable(), organization_id: z.string() })
  .meta({ id: 'CurrentUserMetadata' });
