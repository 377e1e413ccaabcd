import { lazy, Suspense, useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, ErrorNotice, Group, Skeleton, Stack, Text, useFormatters } from '@engram/console-kit';
import { NumberInput } from '@engram/console-kit/widgets';
import { billingApi, billingKeys, CREDIT_DOLLARS } from './billing-api.js';
import { CardSelect, payingCard, Section, useCards, useRefreshBilling } from './shared.js';

// The chart library is the remote's largest dependency: it loads with the chart, after the balance is shown.
const UsageChart = lazy(() => import('./usage-chart.js').then((module) => ({ default: module.UsageChart })));

const dollars = (credits: number) => `$${(credits * CREDIT_DOLLARS).toFixed(2)}`;

/** Buying credits with a saved card: at least 500 credits, in whole cents (multiples of 10). */
function BuyCredits() {
  const cards = useCards();
  const refresh = useRefreshBilling();
  const usable = cards.data?.methods ?? [];
  const [credits, setCredits] = useState<number | string>(5000);
  const [chosen, setChosen] = useState('');
  const cardId = chosen || payingCard(usable);
  const buy = useMutation({
    // One key per purchase asked for: a retry of this request is the same purchase.
    mutationFn: (input: { credits: number; cardId: string }) => billingApi.buyCredits(input, crypto.randomUUID()),
    onSuccess: refresh,
  });
  const amount = typeof credits === 'number' ? credits : 0;
  const valid = amount >= 500 && amount % 10 === 0;
  if (!usable.length) {
    return (
      <Text size="sm" c="dimmed">
        Add a card below to buy credits.
      </Text>
    );
  }
  return (
    <Stack gap="xs">
      {buy.error ? <ErrorNotice error={buy.error} title="No credits were bought" /> : null}
      {buy.data ? (
        <Text size="sm" c="green" data-testid="purchase-done">
          Paid ${buy.data.payment.amount.toFixed(2)}: your balance is now {buy.data.totalCredits.toLocaleString()} credits.
        </Text>
      ) : null}
      <Group align="flex-end" gap="xs">
        <NumberInput
          label="Credits to buy"
          min={500}
          step={500}
          allowDecimal={false}
          thousandSeparator=","
          value={credits}
          onChange={setCredits}
          error={valid || credits === '' ? undefined : 'At least 500 credits, in multiples of 10'}
          w={160}
        />
        <CardSelect cards={usable} value={cardId} onChange={setChosen} label="Pay with" />
        <Button disabled={!valid || !cardId} loading={buy.isPending} onClick={() => buy.mutate({ credits: amount, cardId })}>
          Buy for {dollars(amount)}
        </Button>
      </Group>
    </Stack>
  );
}

/** The credit balance, buying more (with card payments), and what the organization's agents spent per day. */
export function CreditsCard({ cardPayments }: { cardPayments: boolean }) {
  const info = useQuery({ queryKey: billingKeys.info, queryFn: billingApi.billingInfo });
  const format = useFormatters();
  return (
    <Section title="Credits" testId="billing-credits">
      <Stack gap="md">
        {info.error ? <ErrorNotice error={info.error} onRetry={() => void info.refetch()} /> : null}
        {info.data ? (
          <Group gap="xs" align="baseline">
            <Text size="xl" fw={700} data-testid="credit-balance">
              {format.number(info.data.totalCredits)}
            </Text>
            <Text size="sm" c="dimmed">
              credits ({dollars(info.data.totalCredits)})
            </Text>
          </Group>
        ) : (
          <Skeleton h={32} />
        )}
        {cardPayments ? <BuyCredits /> : null}
        <Suspense fallback={<Skeleton h={220} />}>
          <UsageChart />
        </Suspense>
      </Stack>
    </Section>
  );
}
