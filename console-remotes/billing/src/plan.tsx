import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Alert, Badge, Button, Code, ErrorNotice, Group, Modal, Skeleton, Stack, Text, useFormatters } from '@engram/console-kit';
import { billingApi, billingKeys, PAID_TIERS, TIER_NAMES, type BillingInfo, type PaidTier } from './billing-api.js';
import { CardSelect, payingCard, Section, useCards, useRefreshBilling } from './shared.js';

/** Subscribing to a paid tier: which card pays, and what it costs. */
function UpgradeModal({ tier, onClose }: { tier: (typeof PAID_TIERS)[number] | null; onClose: () => void }) {
  const cards = useCards();
  const refresh = useRefreshBilling();
  const usable = cards.data?.methods ?? [];
  const [chosen, setChosen] = useState('');
  const cardId = chosen || payingCard(usable);
  const upgrade = useMutation({
    mutationFn: (input: { cardId: string; tier: PaidTier }) => billingApi.upgrade(input),
    onSuccess: async () => {
      await refresh();
      close();
    },
  });
  const close = () => {
    upgrade.reset();
    setChosen('');
    onClose();
  };
  return (
    <Modal opened={tier !== null} onClose={close} title={tier ? `Upgrade to ${tier.name}` : ''} centered>
      {tier ? (
        <Stack>
          {upgrade.error ? <ErrorNotice error={upgrade.error} title="The plan was not changed" /> : null}
          <Text size="sm">
            ${tier.monthlyDollars} a month, charged now and at the start of each billing period
            {tier.monthlyCredits ? `, with ${tier.monthlyCredits.toLocaleString()} credits every month` : ''}.
          </Text>
          {usable.length ? (
            <CardSelect cards={usable} value={cardId} onChange={setChosen} />
          ) : (
            <Alert color="yellow" variant="light">
              Add a card below first: the plan is paid with a saved card.
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button disabled={!cardId} loading={upgrade.isPending} onClick={() => upgrade.mutate({ cardId, tier: tier.tier })}>
              Pay and upgrade
            </Button>
          </Group>
        </Stack>
      ) : null}
    </Modal>
  );
}

function PlanDetails({ info, cardPayments }: { info: BillingInfo; cardPayments: boolean }) {
  const format = useFormatters();
  const refresh = useRefreshBilling();
  const [upgrading, setUpgrading] = useState<(typeof PAID_TIERS)[number] | null>(null);
  const [confirmingCancel, setConfirmingCancel] = useState(false);
  const cancel = useMutation({
    mutationFn: billingApi.cancel,
    onSuccess: async () => {
      await refresh();
      setConfirmingCancel(false);
    },
  });
  const resume = useMutation({ mutationFn: billingApi.resume, onSuccess: refresh });
  const paid = info.billingTier === 'pro' || info.billingTier === 'scale';
  const periodEnd = format.dateTime(info.billingPeriodEnd);
  return (
    <Stack gap="sm">
      <Group gap="xs">
        <Text size="xl" fw={700} data-testid="billing-tier">
          {TIER_NAMES[info.billingTier]}
        </Text>
        {info.isCancelled ? (
          <Badge color="orange" variant="light" data-testid="plan-cancelled">
            Cancelled
          </Badge>
        ) : null}
      </Group>
      <Text size="sm" c="dimmed" data-testid="plan-period">
        {info.isCancelled
          ? `Your ${TIER_NAMES[info.billingTier]} plan ends on ${periodEnd}; the organization then returns to the Free plan.`
          : `The current billing period ends on ${periodEnd}. Monthly credits: ${info.recurrentCredits.toLocaleString()}.`}
      </Text>
      {resume.error ? <ErrorNotice error={resume.error} title="The plan was not resumed" /> : null}
      {cardPayments ? null : (
        <Text size="sm" c="dimmed" data-testid="no-card-payments">
          Plans are paid by card, and card payments are not set up on this server (<Code>STRIPE_SECRET_KEY</Code>).
        </Text>
      )}
      <Group gap="xs" display={cardPayments ? undefined : 'none'}>
        {PAID_TIERS.filter((tier) => tier.tier !== info.billingTier && info.billingTier !== 'enterprise').map((tier) => (
          <Button key={tier.tier} variant={tier.tier === 'pro' ? 'filled' : 'light'} onClick={() => setUpgrading(tier)}>
            {paid ? `Switch to ${tier.name}` : `Upgrade to ${tier.name}`} (${tier.monthlyDollars}/month)
          </Button>
        ))}
        {paid && !info.isCancelled ? (
          <Button variant="subtle" color="red" onClick={() => setConfirmingCancel(true)}>
            Cancel plan
          </Button>
        ) : null}
        {paid && info.isCancelled ? (
          <Button variant="light" color="green" loading={resume.isPending} onClick={() => resume.mutate()}>
            Resume plan
          </Button>
        ) : null}
      </Group>
      <UpgradeModal tier={upgrading} onClose={() => setUpgrading(null)} />
      <Modal opened={confirmingCancel} onClose={() => setConfirmingCancel(false)} title={`Cancel the ${TIER_NAMES[info.billingTier]} plan?`} centered>
        <Stack>
          {cancel.error ? <ErrorNotice error={cancel.error} title="The plan was not cancelled" /> : null}
          <Text size="sm">
            The plan stays until {periodEnd} and is not renewed; then the organization moves to the Free plan and its limits. You can resume it until
            then.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirmingCancel(false)}>
              Keep plan
            </Button>
            <Button color="red" loading={cancel.isPending} onClick={() => cancel.mutate()}>
              Cancel plan
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

/** The organization's tier, its billing period, and (with card payments) the upgrade, cancel and resume actions. */
export function PlanCard({ cardPayments }: { cardPayments: boolean }) {
  const info = useQuery({ queryKey: billingKeys.info, queryFn: billingApi.billingInfo });
  return (
    <Section title="Plan" testId="billing-plan">
      {info.error ? <ErrorNotice error={info.error} onRetry={() => void info.refetch()} /> : null}
      {info.data ? <PlanDetails info={info.data} cardPayments={cardPayments} /> : info.isPending ? <Skeleton h={90} /> : null}
    </Section>
  );
}
