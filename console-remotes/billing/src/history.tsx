import { useInfiniteQuery } from '@tanstack/react-query';
import { Anchor, Button, ErrorNotice, Skeleton, Table, Text, useFormatters } from '@engram/console-kit';
import { IconReceipt } from '@tabler/icons-react';
import { billingApi, billingKeys } from './billing-api.js';
import { Section } from './shared.js';

/** Every charge, newest first, with Stripe's receipt where there is one. */
export function HistoryCard() {
  const format = useFormatters();
  const history = useInfiniteQuery({
    queryKey: billingKeys.history,
    queryFn: ({ pageParam }) => billingApi.history(pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
  const entries = history.data?.pages.flatMap((page) => page.history) ?? [];
  return (
    <Section title="Billing history" testId="billing-history">
      {history.error ? <ErrorNotice error={history.error} onRetry={() => void history.refetch()} /> : null}
      {history.isPending ? <Skeleton h={80} /> : null}
      {history.data && entries.length === 0 ? (
        <Text size="sm" c="dimmed">
          No charges yet.
        </Text>
      ) : null}
      {entries.length ? (
        <Table.ScrollContainer minWidth={480}>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Date</Table.Th>
                <Table.Th>Description</Table.Th>
                <Table.Th ta="right">Amount</Table.Th>
                <Table.Th>Receipt</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {entries.map((entry) => (
                <Table.Tr key={entry.id} data-testid="billing-history-entry">
                  <Table.Td>{format.dateTime(entry.createdAt)}</Table.Td>
                  <Table.Td>{entry.description}</Table.Td>
                  <Table.Td ta="right">${entry.amount.toFixed(2)}</Table.Td>
                  <Table.Td>
                    {entry.receiptLink ? (
                      <Anchor href={entry.receiptLink} target="_blank" rel="noreferrer" size="sm" aria-label={`Receipt for ${entry.description}`}>
                        <IconReceipt size={14} style={{ verticalAlign: 'middle' }} /> Receipt
                      </Anchor>
                    ) : (
                      <Text size="sm" c="dimmed">
                        —
                      </Text>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : null}
      {history.hasNextPage ? (
        <Button variant="default" size="xs" mt="sm" loading={history.isFetchingNextPage} onClick={() => void history.fetchNextPage()}>
          Older charges
        </Button>
      ) : null}
    </Section>
  );
}
