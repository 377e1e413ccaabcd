import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Badge, ErrorNotice, Link, PageHeader, Skeleton, Table, TextInput, useDebouncedValue, useFormatters } from '@engram/console-kit';
import { IconSearch } from '@tabler/icons-react';
import { adminApi, adminKeys } from './admin-api.js';
import { useRemoteRoot } from './section-layout.js';

/** Every organization of the platform, searched by name or id. */
export function OrganizationsPage() {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, 250);
  const root = useRemoteRoot();
  const format = useFormatters();
  const organizations = useQuery({ queryKey: adminKeys.organizations(debounced), queryFn: () => adminApi.organizations(debounced), placeholderData: keepPreviousData });
  return (
    <>
      <PageHeader title="Organizations" description="Every organization on the platform." />
      <TextInput
        aria-label="Search organizations"
        placeholder="Search by name or id"
        leftSection={<IconSearch size={16} />}
        value={search}
        onChange={(event) => setSearch(event.currentTarget.value)}
        mb="md"
        maw={420}
      />
      {organizations.error ? <ErrorNotice error={organizations.error} onRetry={() => void organizations.refetch()} /> : null}
      {organizations.isPending ? <Skeleton h={120} /> : null}
      {organizations.data ? (
        <Table highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Tier</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Created</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {organizations.data.organizations.map((organization) => (
              <Table.Tr key={organization.id} data-testid="organization-row">
                <Table.Td>
                  <Link to={`${root}/organizations/${organization.id}`}>{organization.name}</Link>
                </Table.Td>
                <Table.Td>{organization.billingTier}</Table.Td>
                <Table.Td>{organization.bannedAt ? <Badge color="red">Banned</Badge> : <Badge color="green" variant="light">Active</Badge>}</Table.Td>
                <Table.Td>{format.relative(organization.createdAt)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
    </>
  );
}
