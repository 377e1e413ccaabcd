import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingPeriod, monthlyGrantKey } from '@engram/core';
import { BillingAccount, CreditTransaction, newId, Organization } from '@engram/db';
import { ensureBillingPeriodSchedule } from '@engram/temporal/client';
import { startTestStack, type TestStack } from '@engram/testing';
import type { billingPeriodWorkflow } from './workflow.js';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});

afterAll(async () => {
  await stack?.stop();
});

/** One run of the workflow the hourly schedule starts, on this file's worker. */
const runBillingPeriod = () =>
  stack.temporal.workflow.execute<typeof billingPeriodWorkflow>('billingPeriodWorkflow', {
    workflowId: `billing-period-test-${randomBytes(4).toString('hex')}`,
    taskQueue: stack.taskQueue,
  });

async function ledger(organizationId: string) {
  const rows = await CreditTransaction.query(stack.db).forOrg(organizationId);
  const balance = Number((await BillingAccount.query(stack.db).forOrg(organizationId).first())?.creditBalance ?? 0);
  const sum = rows.reduce((total, row) => total + (row.type === 'addition' ? Number(row.amount) : -Number(row.amount)), 0);
  return { rows, balance, sum };
}

/** An organization as it stands when a new period begins: no grant of it yet. */
async function organizationWithoutGrant(tier: 'free' | 'pro' | 'scale'): Promise<string> {
  const organization = await Organization.query(stack.db).insert({ id: newId('organization'), name: `period ${tier}`, billingTier: tier }).returning('*');
  return organization.id;
}

describe('the billing period schedule', () => {
  it('is one hourly schedule starting billingPeriodWorkflow on the task queue', async () => {
    const scheduleId = `billing-periods-test-${randomBytes(4).toString('hex')}`;
    await ensureBillingPeriodSchedule({ client: stack.temporal, taskQueue: stack.taskQueue, scheduleId });
    const handle = stack.temporal.schedule.getHandle(scheduleId);
    try {
      // A second API process finds it there.
      await ensureBillingPeriodSchedule({ client: stack.temporal, taskQueue: stack.taskQueue, scheduleId });
      const described = await handle.describe();
      expect(described.spec.intervals).toEqual([expect.objectContaining({ every: 3_600_000 })]);
      expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'billingPeriodWorkflow', taskQueue: stack.taskQueue });
    } finally {
      await handle.delete();
    }
  });

  it("grants each due organization its tier's credits once, however often it runs", async () => {
    const [free, pro, scale] = [await organizationWithoutGrant('free'), await organizationWithoutGrant('pro'), await organizationWithoutGrant('scale')];
    const first = await runBillingPeriod();
    expect(first.granted).toBeGreaterThanOrEqual(2);
    await runBillingPeriod();

    const key = monthlyGrantKey(billingPeriod(new Date()));
    for (const [organizationId, amount] of [[free, 5000], [pro, 20_000]] as const) {
      const { rows, balance, sum } = await ledger(organizationId);
      expect(rows.map((row) => [row.source, Number(row.amount), row.idempotencyKey])).toEqual([['monthly_grant', amount, key]]);
      expect(balance).toBe(amount);
      expect(sum).toBe(balance);
    }
    expect((await ledger(scale)).rows).toEqual([]);
    expect((await stack.services.billing.billingInfo(pro)).totalCredits).toBe(20_000);
  });

  it('takes back what is left of expired gift-code credits, once', async () => {
    const { organizationId } = await stack.createTenant();
    const code = await stack.services.giftCodes.createGiftCode({ name: 'brief', code: `BRIEF-${Date.now()}`, redemptionAmount: 50, creditExpiryTimeMs: 1 });
    await stack.services.giftCodes.redeem(organizationId, code.code);
    expect((await ledger(organizationId)).balance).toBe(5050);
    // Reading billing info books nothing: expiry is the schedule's.
    expect((await stack.services.billing.billingInfo(organizationId)).totalCredits).toBe(5050);

    await runBillingPeriod();
    await runBillingPeriod();
    const { rows, balance, sum } = await ledger(organizationId);
    expect(rows.filter((row) => row.source === 'credit_expiry').map((row) => Number(row.amount))).toEqual([50]);
    expect(balance).toBe(5000);
    expect(sum).toBe(5000);
  });

  it('ends plans cancelled at a period end that has passed, back to free', async () => {
    const { organizationId } = await stack.createTenant();
    await Organization.query(stack.db).findById(organizationId).patch({ billingTier: 'pro' });
    await BillingAccount.query(stack.db).forOrg(organizationId).patch({ stripeSubscriptionId: 'sub_ended', isCancelled: true, cancelAt: new Date(Date.now() - 1000) });
    const other = await stack.createTenant();
    const nextPeriod = billingPeriod(new Date()).end;
    await Organization.query(stack.db).findById(other.organizationId).patch({ billingTier: 'pro' });
    await BillingAccount.query(stack.db).forOrg(other.organizationId).patch({ stripeSubscriptionId: 'sub_running', isCancelled: true, cancelAt: nextPeriod });

    await runBillingPeriod();
    expect(await stack.services.billing.billingInfo(organizationId)).toMatchObject({ billingTier: 'free', isCancelled: false });
    expect((await BillingAccount.query(stack.db).forOrg(organizationId).first())?.stripeSubscriptionId).toBeNull();
    expect(await stack.services.billing.billingInfo(other.organizationId)).toMatchObject({ billingTier: 'pro', isCancelled: true });
  });
});
