import { useQuery, useQueryClient } from '@tanstack/react-query';
import { consoleApi, NativeSelect, queryKeys, useSession } from '@engram/console-kit';
import { billingApi, billingKeys, type PaymentCard } from './billing-api.js';

/** The titled card every section of this screen sits in. */
export { Section } from '@engram/console-kit';

/** After a payment, a plan change or a redemption: the balance, plan, history and quotas may all have moved. */
export function useRefreshBilling() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: billingKeys.all });
}

/**
 * How this server bills (the console settings, shared with the member's access): whether anything is enforced
 * (ENGRAM_BILLING) and whether cards can pay (Stripe configured). Undefined until known: nothing is sold meanwhile.
 */
export function useBillingSettings(): { enforced: boolean; cardPayments: boolean } | undefined {
  const { organization } = useSession();
  const settings = useQuery({ queryKey: queryKeys.consoleSettings(organization?.id ?? ''), queryFn: () => consoleApi.consoleSettings(), enabled: organization !== null });
  return settings.data?.billing;
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
