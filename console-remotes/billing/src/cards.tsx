import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { ActionIcon, Badge, Button, ErrorNotice, Group, Modal, NativeSelect, Skeleton, Stack, Table, Text, TextInput, Tooltip } from '@engram/console-kit';
import { IconPlus, IconStar, IconTrash } from '@tabler/icons-react';
import { billingApi, type PaymentCard } from './billing-api.js';
import { cardLabel, Section, useCards, useRefreshBilling } from './shared.js';

/**
 * Stripe's test payment methods: in test mode (and against stripe-mock) a setup intent is confirmed with one of
 * these instead of card numbers typed into Stripe's own card field.
 */
const TEST_METHODS = [
  { value: 'pm_card_visa', label: 'Visa test card (4242)' },
  { value: 'pm_card_mastercard', label: 'Mastercard test card (4444)' },
  { value: 'pm_card_amex', label: 'American Express test card (8431)' },
  { value: 'pm_card_discover', label: 'Discover test card (1117)' },
  { value: 'other', label: 'Another payment method id…' },
];

/**
 * Saving a card: a Stripe setup intent for the organization's customer, confirmed with the chosen payment method,
 * after which Stripe holds the card for off-session charges and Engram lists it.
 */
function AddCardModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const refresh = useRefreshBilling();
  const [method, setMethod] = useState('pm_card_visa');
  const [other, setOther] = useState('');
  const paymentMethodId = method === 'other' ? other.trim() : method;
  const add = useMutation({
    mutationFn: async (id: string) => {
      const intent = await billingApi.setupIntent();
      return billingApi.addCard({ setupIntentId: intent.setupIntentId, paymentMethodId: id });
    },
    onSuccess: async () => {
      await refresh();
      close();
    },
  });
  const close = () => {
    add.reset();
    setMethod('pm_card_visa');
    setOther('');
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title="Add a card" centered>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          add.mutate(paymentMethodId);
        }}
      >
        <Stack>
          {add.error ? <ErrorNotice error={add.error} title="The card was not saved" /> : null}
          <Text size="sm" c="dimmed">
            The card is saved with Stripe through a setup intent, so later purchases, plans and auto top-ups can charge it.
          </Text>
          <NativeSelect label="Payment method" data={TEST_METHODS} value={method} onChange={(event) => setMethod(event.currentTarget.value)} />
          {method === 'other' ? (
            <TextInput label="Payment method id" placeholder="pm_…" value={other} onChange={(event) => setOther(event.currentTarget.value)} data-autofocus />
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" disabled={!/^pm_\w+$/.test(paymentMethodId)} loading={add.isPending}>
              Save card
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function CardRow({ card }: { card: PaymentCard }) {
  const refresh = useRefreshBilling();
  const makeDefault = useMutation({ mutationFn: () => billingApi.setDefaultCard(card.id), onSuccess: refresh });
  const remove = useMutation({ mutationFn: () => billingApi.deleteCard(card.id), onSuccess: refresh });
  const error = makeDefault.error ?? remove.error;
  return (
    <Table.Tr data-testid="payment-card">
      <Table.Td>
        <Text size="sm" fw={500}>
          {cardLabel(card)}
        </Text>
        {card.name ? (
          <Text size="xs" c="dimmed">
            {card.name}
          </Text>
        ) : null}
        {error ? <ErrorNotice error={error} title={makeDefault.error ? 'The default card was not changed' : 'The card was not removed'} /> : null}
      </Table.Td>
      <Table.Td>
        <Group gap={4}>
          {card.isDefault ? <Badge variant="light">Default</Badge> : null}
          {card.isExpired ? (
            <Badge color="red" variant="light">
              Expired
            </Badge>
          ) : null}
        </Group>
      </Table.Td>
      <Table.Td>
        <Group gap={4} justify="flex-end" wrap="nowrap">
          {!card.isDefault && !card.isExpired ? (
            <Tooltip label="Make default">
              <ActionIcon variant="subtle" aria-label={`Make ${cardLabel(card)} the default`} loading={makeDefault.isPending} onClick={() => makeDefault.mutate()}>
                <IconStar size={16} />
              </ActionIcon>
            </Tooltip>
          ) : null}
          <Tooltip label="Remove card">
            <ActionIcon variant="subtle" color="red" aria-label={`Remove ${cardLabel(card)}`} loading={remove.isPending} onClick={() => remove.mutate()}>
              <IconTrash size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

/** The organization's saved cards: the default pays plans and auto top-ups; expired cards are flagged. */
export function CardsCard() {
  const cards = useCards();
  const [adding, setAdding] = useState(false);
  return (
    <Section
      title="Cards"
      testId="billing-cards"
      actions={
        <Button size="xs" variant="light" leftSection={<IconPlus size={14} />} onClick={() => setAdding(true)}>
          Add card
        </Button>
      }
    >
      {cards.error ? <ErrorNotice error={cards.error} onRetry={() => void cards.refetch()} /> : null}
      {cards.isPending ? <Skeleton h={60} /> : null}
      {cards.data?.methods.length === 0 ? (
        <Text size="sm" c="dimmed">
          No cards yet.
        </Text>
      ) : null}
      {cards.data?.methods.length ? (
        <Table>
          <Table.Tbody>
            {cards.data.methods.map((card) => (
              <CardRow key={card.id} card={card} />
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
      <AddCardModal opened={adding} onClose={() => setAdding(false)} />
    </Section>
  );
}
