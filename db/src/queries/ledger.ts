import type { Knex } from 'knex';
import { newTransactionId, type CreditModelTier, type TransactionSource, type TransactionType } from '../models/billing.js';

/** Dollars per credit (spec 000 §9). */
export const DOLLARS_PER_CREDIT = 0.001;

export type StepCharge = {
  transactionId: string;
  amount: number;
  modelTier: CreditModelTier;
  balance: number;
  /** This charge took the balance from at or above the auto top-up threshold to below it (auto top-up on). */
  crossedTopUpThreshold: boolean;
};

export type MeteredStep = {
  organizationId: string;
  stepId: string;
  agentId: string;
  runId: string;
  /** The model name the provider answered with, and the agent's handle (`openai/gpt-4o`); the handle's row wins. */
  model: string;
  modelHandle: string | null;
  contextWindow: number;
  promptTokens: number;
  completionTokens: number;
};

/**
 * Charges one step, in the caller's transaction and in one SQL statement: reads the model's step cost (its
 * handle's row, else its name's, else `*`), books one subtraction keyed by the step id, stamps the step with the
 * transaction id, moves the organization's balance by the same amount and counts the month's requests of the model's
 * tier, saying whether the charge crossed the auto top-up threshold. A step already charged is not charged again
 * (null).
 */
export async function meterStep(trx: Knex | Knex.Transaction, step: MeteredStep): Promise<StepCharge | null> {
  const transactionId = newTransactionId();
  const metadata = {
    agentId: step.agentId,
    runId: step.runId,
    model: step.modelHandle ?? step.model,
    contextWindowSize: step.contextWindow,
    promptTokens: step.promptTokens,
    completionTokens: step.completionTokens,
  };
  const result = await trx.raw(
    `with price as (
       select c.model_tier,
              coalesce(
                (select (e->>'cost')::int from jsonb_array_elements(c.costs) e
                  where (e->>'maxContextWindowSize')::int >= :contextWindow
                  order by (e->>'maxContextWindowSize')::int limit 1),
                (select max((e->>'cost')::int) from jsonb_array_elements(c.costs) e)) as cost
         from model_step_costs c
        where c.model in (:handle, :model, '*')
        order by case c.model when :handle then 0 when :model then 1 else 2 end
        limit 1
     ), charged as (
       insert into transactions (id, organization_id, type, amount, true_cost, source, step_id, model_tier, metadata, note)
       select :transactionId, :organizationId, 'subtraction', price.cost, price.cost * cast(:dollarsPerCredit as double precision), 'inference', :stepId,
              price.model_tier, :metadata::jsonb, :note
         from price where price.cost > 0
       on conflict (step_id) do nothing
       returning amount, model_tier
     ), stamped as (
       update steps set tid = :transactionId where id = :stepId and exists (select 1 from charged)
     )
     insert into billing_accounts (organization_id, credit_balance, usage_period, free_inferences, premium_inferences)
     select :organizationId, -charged.amount, to_char(now() at time zone 'UTC', 'YYYY-MM'),
            (charged.model_tier = 'free')::int, (charged.model_tier = 'premium')::int
       from charged
     on conflict (organization_id) do update
       set credit_balance = billing_accounts.credit_balance + excluded.credit_balance,
           free_inferences = excluded.free_inferences
             + case when billing_accounts.usage_period = excluded.usage_period then billing_accounts.free_inferences else 0 end,
           premium_inferences = excluded.premium_inferences
             + case when billing_accounts.usage_period = excluded.usage_period then billing_accounts.premium_inferences else 0 end,
           usage_period = excluded.usage_period,
           updated_at = now()
     returning credit_balance, (select amount from charged) as amount, (select model_tier from charged) as model_tier,
               coalesce(auto_top_up_enabled and credit_balance < auto_top_up_threshold
                        and credit_balance + (select amount from charged) >= auto_top_up_threshold, false) as crossed_top_up_threshold`,
    {
      contextWindow: step.contextWindow,
      handle: step.modelHandle ?? step.model,
      model: step.model,
      transactionId,
      organizationId: step.organizationId,
      dollarsPerCredit: DOLLARS_PER_CREDIT,
      stepId: step.stepId,
      metadata: JSON.stringify(metadata),
      note: `Step of ${step.modelHandle ?? step.model}`,
    },
  );
  // A raw result's rows keep the column names PostgreSQL gives them: the snake-case mappers rename model rows only.
  const row = (result.rows as Array<{ credit_balance: string; amount: string; model_tier: CreditModelTier; crossed_top_up_threshold: boolean }>)[0];
  if (!row) return null;
  return {
    transactionId,
    amount: Number(row.amount),
    modelTier: row.model_tier,
    balance: Number(row.credit_balance),
    crossedTopUpThreshold: row.crossed_top_up_threshold,
  };
}

export type Booking = {
  organizationId: string;
  type: TransactionType;
  amount: number;
  source: TransactionSource;
  note?: string | null;
  metadata?: Record<string, unknown>;
  /** What the booking pays for; a second booking with the same key books nothing. */
  idempotencyKey?: string | null;
  expiresAt?: Date | null;
  trueCost?: number | null;
};

export type Booked = { transactionId: string; balance: number };

/**
 * Books one ledger entry and moves the balance with it, in one statement. Null when a booking with the same
 * idempotency key already exists (nothing changes then).
 */
export async function bookTransaction(trx: Knex | Knex.Transaction, booking: Booking): Promise<Booked | null> {
  const transactionId = newTransactionId();
  const result = await trx.raw(
    `with booked as (
       insert into transactions (id, organization_id, type, amount, true_cost, source, note, metadata, idempotency_key, expires_at)
       values (:transactionId, :organizationId, :type, :amount, :trueCost, :source, :note, :metadata::jsonb, :idempotencyKey, :expiresAt)
       on conflict (organization_id, idempotency_key) do nothing
       returning amount, type
     )
     insert into billing_accounts (organization_id, credit_balance)
     select :organizationId, case booked.type when 'addition' then booked.amount else -booked.amount end from booked
     on conflict (organization_id) do update
       set credit_balance = billing_accounts.credit_balance + excluded.credit_balance, updated_at = now()
     returning credit_balance`,
    {
      transactionId,
      organizationId: booking.organizationId,
      type: booking.type,
      amount: booking.amount,
      trueCost: booking.trueCost ?? booking.amount * DOLLARS_PER_CREDIT,
      source: booking.source,
      note: booking.note ?? null,
      metadata: JSON.stringify(booking.metadata ?? {}),
      idempotencyKey: booking.idempotencyKey ?? null,
      expiresAt: booking.expiresAt ?? null,
    },
  );
  const row = (result.rows as Array<{ credit_balance: string }>)[0];
  return row ? { transactionId, balance: Number(row.credit_balance) } : null;
}

/** What one step of a model costs at a context window, and its tier: the same lookup `meterStep` books with. */
export async function priceOfStep(
  db: Knex | Knex.Transaction,
  step: { model: string; modelHandle: string | null; contextWindow: number },
): Promise<{ cost: number; modelTier: CreditModelTier }> {
  const handle = step.modelHandle ?? step.model;
  const result = await db.raw(
    `select c.model_tier,
            coalesce(
              (select (e->>'cost')::int from jsonb_array_elements(c.costs) e
                where (e->>'maxContextWindowSize')::int >= :contextWindow
                order by (e->>'maxContextWindowSize')::int limit 1),
              (select max((e->>'cost')::int) from jsonb_array_elements(c.costs) e)) as cost
       from model_step_costs c
      where c.model in (:handle, :model, '*')
      order by case c.model when :handle then 0 when :model then 1 else 2 end
      limit 1`,
    { contextWindow: step.contextWindow, handle, model: step.model },
  );
  const row = (result.rows as Array<{ model_tier: CreditModelTier; cost: number }>)[0];
  return { cost: Number(row?.cost ?? 0), modelTier: row?.model_tier ?? 'free' };
}
