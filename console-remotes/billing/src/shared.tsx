import type { ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Card, Group, NativeSelect, Text } from '@engram/console-kit';
import { billingApi, billingKeys, type PaymentCard } from './billing-api.js';

/** One section of the billing screen. */
export function Section({ title, testId, actions, children }: { title: string; testId: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <Card withBorder radius="md" padding="lg" data-testid={testId} component="section" aria-label={title}>
      <Group justify="space-between" mb="md" wrap="nowrap">
        <Text fw={600}>{title}</Text>
        {actions}
      </Group>
      {children}
    </Card>
  );
}

/** After a payment, a plan change or a redemption: the balance, plan, history and quotas may all have moved. */
export function useRefreshBilling() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: billingKeys.all });
}

export function useCards() {
  return useQuery({ queryKey: billingKeys.cards, queryFn: billingApi.cards });
}

export const cardLabel = (card: PaymentCard) =>
  `${card.brand.toUpperCase()} •••• ${card.last4} (${String(card.expMonth).padStart(2, '0')}/${card.expYear})${card.isExpired ? ', expired' : ''}`;

/** The saved cards to pay with; expired cards cannot be chosen. */
export function CardSelect({ cards, value, onChange, label = 'Card' }: { cards: PaymentCard[]; value: string; onChange: (id: string) => void; label?: string }) {
  return (
    <NativeSelect
      label={label}
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      data={cards.map((card) => ({ value: card.id, label: cardLabel(card), disabled: card.isExpired }))}
    />
  );
}

/** The default card if it can pay, otherwise the first that can; '' without one. */
export const payingCard = (cards: PaymentCard[]) => (cards.find((card) => card.isDefault && !card.isExpired) ?? cards.find((card) => !card.isExpired))?.id ?? '';
