import { useState, type ReactNode } from 'react';
import { Card, Pager, Skeleton, Stack, Table, Text, TextInput, useDebouncedValue } from '@engram/console-kit';
import { IconSearch } from '@tabler/icons-react';

/** One page of an offset-paged list, as the pager needs it. */
export interface PageControl {
  offset: number;
  limit: number;
  hasNextPage: boolean;
  onChange: (offset: number) => void;
}

/**
 * A searchable, offset-paged list's state: the search as typed (for `SearchField`), the debounced term
 * to query with, and the offset; a new search starts again from the first page.
 */
export function usePagedSearch() {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 250);
  const [offset, setOffset] = useState(0);
  const searchField = {
    value: search,
    onChange: (value: string) => {
      setSearch(value);
      setOffset(0);
    },
  };
  return { debounced, offset, setOffset, searchField };
}

/** The search box above a list; `label` is its accessible name. */
export function SearchField({ value, onChange, placeholder, label }: { value: string; onChange: (value: string) => void; placeholder: string; label: string }) {
  return (
    <TextInput
      placeholder={placeholder}
      leftSection={<IconSearch size={16} />}
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      maw={420}
      mb="lg"
      aria-label={label}
    />
  );
}

/** What an empty list shows in place of its table. */
export function EmptyTableState({ icon, title, description }: { icon: ReactNode; title: ReactNode; description: ReactNode }) {
  return (
    <Stack align="center" p="xl" gap="xs">
      {icon}
      <Text fw={600}>{title}</Text>
      <Text size="sm" c="dimmed" ta="center">
        {description}
      </Text>
    </Stack>
  );
}

/**
 * A settings list: a card with the table (`head` cells, `children` rows), placeholders while the first
 * page loads, `empty` instead of the table when it is given, and the pager below.
 */
export function PagedTable({
  testId,
  highlightOnHover,
  loading = false,
  empty,
  head,
  page,
  children,
}: {
  testId: string;
  highlightOnHover?: boolean;
  loading?: boolean;
  empty?: ReactNode;
  head: ReactNode;
  page: PageControl;
  children: ReactNode;
}) {
  return (
    <>
      <Card withBorder radius="lg" p={0}>
        {loading ? (
          <Stack p="md">
            <Skeleton h={20} />
            <Skeleton h={20} />
          </Stack>
        ) : empty ? (
          empty
        ) : (
          <Table.ScrollContainer minWidth={0}>
            <Table verticalSpacing="sm" horizontalSpacing="md" highlightOnHover={highlightOnHover} data-testid={testId}>
              <Table.Thead>
                <Table.Tr>{head}</Table.Tr>
              </Table.Thead>
              <Table.Tbody>{children}</Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Card>
      <Pager {...page} />
    </>
  );
}
