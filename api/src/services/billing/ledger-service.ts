import {
  BillingAccount,
  bookTransaction,
  CreditTransaction,
  Organization,
  Step,
  type Booked,
  type Database,
  type TransactionSource,
} from '@engram/db';
import { NotFoundError } from '../../errors.js';
import { billingPeriod, MONTHLY_CREDIT_GRANTS } from '@engram/core';
import type { BillingInfo, TransactionFilter, UsageBucket } from './types.js';

export type CreditChange = {
  amount: number;
  note?: string | null | undefined;
  source?: TransactionSource;
  metadata?: Record<string, unknown>;
  idempotencyKey?: string | null;
  expiresAt?: Date | null;
};

/**
 * The credit ledger of each organization: its balance, manual credits, the transaction list and the usage it adds
 * up to. Steps are charged by the worker (`meterStep`), monthly grants and expiries by the billing period schedule
 * (`billingPeriodWorkflow`), payments by the payment service; everything else books through here.
 */
export function createLedgerService(deps: { db: Database; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  async function account(trx: Database, organizationId: string): Promise<BillingAccount> {
    await BillingAccount.query(trx).insert({ organizationId } as BillingAccount).onConflict('organizationId').ignore();
    return (await BillingAccount.query(trx).forOrg(organizationId).first()) as BillingAccount;
  }

  async function tierOf(trx: Database, organizationId: string) {
    const organization = await Organization.query(trx).findById(organizationId).select('billingTier');
    if (!organization) throw new NotFoundError('Organization');
    return organization.billingTier;
  }

  async function change(organizationId: string, type: 'addition' | 'subtraction', input: CreditChange): Promise<Booked | null> {
    await tierOf(db, organizationId);
    return bookTransaction(db, {
      organizationId,
      type,
      amount: input.amount,
      source: input.source ?? 'admin',
      note: input.note ?? null,
      metadata: input.metadata ?? {},
      idempotencyKey: input.idempotencyKey ?? null,
      expiresAt: input.expiresAt ?? null,
    });
  }

  return {
    async balance(organizationId: string): Promise<number> {
      return Number((await account(db, organizationId)).creditBalance);
    },

    /** Grants and expiries are booked by the billing period schedule; reading books nothing. */
    async billingInfo(organizationId: string): Promise<BillingInfo> {
      const [tier, billing] = await Promise.all([tierOf(db, organizationId), account(db, organizationId)]);
      return {
        billingTier: tier,
        totalCredits: Number(billing.creditBalance),
        recurrentCredits: MONTHLY_CREDIT_GRANTS[tier],
        isCancelled: billing.isCancelled,
        billingPeriodEnd: billingPeriod(now()).end.toISOString(),
      };
    },

    /** Credits an operator or a payment adds (a positive integer). */
    addCredits: (organizationId: string, input: CreditChange) => change(organizationId, 'addition', input),

    /** Credits an operator takes back (a positive integer); the balance may go below zero. */
    removeCredits: (organizationId: string, input: CreditChange) => change(organizationId, 'subtraction', input),

    /** Newest first, `limit` per page after `offset`. */
    async listTransactions(organizationId: string, filter: TransactionFilter, page: { offset: number; limit: number }) {
      const query = CreditTransaction.query(db).forOrg(organizationId).orderBy('createdAt', 'desc').orderBy('id', 'desc');
      if (filter.type) query.where('type', filter.type);
      if (filter.startDate) query.where('createdAt', '>=', filter.startDate);
      if (filter.endDate) query.where('createdAt', '<', filter.endDate);
      const rows = await query.offset(page.offset).limit(page.limit + 1);
      return { transactions: rows.slice(0, page.limit), hasNextPage: rows.length > page.limit };
    },

    /** Metered steps per UTC day and model: credits, requests and tokens. */
    async usageAggregation(organizationId: string, range: { startDate: Date; endDate: Date }): Promise<UsageBucket[]> {
      const rows = (await CreditTransaction.query(db)
        .forOrg(organizationId)
        .where('source', 'inference')
        .where('createdAt', '>=', range.startDate)
        .where('createdAt', '<', range.endDate)
        .select(
          db.raw(`to_char(date_trunc('day', created_at at time zone 'UTC'), 'YYYY-MM-DD') as date`),
          db.raw(`coalesce(metadata->>'model', 'unknown') as model`),
          db.raw(`sum(case type when 'subtraction' then amount else -amount end)::bigint as credits`),
          db.raw(`count(*)::int as requests`),
          db.raw(`coalesce(sum((metadata->>'promptTokens')::bigint), 0)::bigint as prompt_tokens`),
          db.raw(`coalesce(sum((metadata->>'completionTokens')::bigint), 0)::bigint as completion_tokens`),
        )
        .groupByRaw('1, 2')
        .orderByRaw('1, 2')) as unknown as Array<Record<keyof UsageBucket, string | number>>;
      return rows.map((row) => ({
        date: String(row.date),
        model: String(row.model),
        credits: Number(row.credits),
        requests: Number(row.requests),
        promptTokens: Number(row.promptTokens),
        completionTokens: Number(row.completionTokens),
      }));
    },

    /** Records which transaction paid for a step (`PATCH /v1/steps/{id}/transaction/{tid}`); both must be the organization's. */
    async linkStepTransaction(organizationId: string, stepId: string, transactionId: string): Promise<Step> {
      return db.transaction(async (trx) => {
        const transaction = await CreditTransaction.query(trx).forOrg(organizationId).findById(transactionId);
        if (!transaction) throw new NotFoundError('Transaction');
        const step = await Step.query(trx).forOrg(organizationId).patchAndFetchById(stepId, { tid: transactionId });
        if (!step) throw new NotFoundError('Step');
        return step;
      });
    },
  };
}

export type LedgerService = ReturnType<typeof createLedgerService>;
