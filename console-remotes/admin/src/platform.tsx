import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Code, ErrorNotice, Group, PageHeader, Skeleton, Stack, Table, Text, TextInput, useDebouncedValue, useFormatters } from '@engram/console-kit';
import { IconSearch } from '@tabler/icons-react';
import { adminApi, adminKeys } from './admin-api.js';

/** Every account of the platform. */
export function UsersPage() {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, 250);
  const format = useFormatters();
  const users = useQuery({ queryKey: adminKeys.users(debounced), queryFn: () => adminApi.users(debounced), placeholderData: keepPreviousData });
  return (
    <>
      <PageHeader title="Users" />
      <TextInput aria-label="Search users" placeholder="Search by email, name or id" leftSection={<IconSearch size={16} />} value={search} onChange={(event) => setSearch(event.currentTarget.value)} mb="md" maw={420} />
      {users.error ? <ErrorNotice error={users.error} /> : null}
      <Table>
        <Table.Tbody>
          {users.data?.users.map((user) => (
            <Table.Tr key={user.id}>
              <Table.Td>{user.name}</Table.Td>
              <Table.Td>{user.email ?? '—'}</Table.Td>
              <Table.Td>{user.permissions.includes('platform_admin') ? 'Platform admin' : ''}</Table.Td>
              <Table.Td>{format.relative(user.createdAt)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </>
  );
}

/** Provider-owned OAuth apps and their secrets. */
export function OAuthAppsPage() {
  const queryClient = useQueryClient();
  const apps = useQuery({ queryKey: adminKeys.oauthApps, queryFn: adminApi.oauthApps });
  const regenerate = useMutation({ mutationFn: adminApi.regenerateSecret, onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKeys.oauthApps }) });
  return (
    <>
      <PageHeader title="OAuth apps" description="Regenerating a secret ends the old one at once." />
      {apps.error ? <ErrorNotice error={apps.error} /> : null}
      {regenerate.error ? <ErrorNotice error={regenerate.error} /> : null}
      <Table>
        <Table.Tbody>
          {apps.data?.apps.map((app) => (
            <Table.Tr key={app.id}>
              <Table.Td>{app.name}</Table.Td>
              <Table.Td>
                <Code>{app.clientId}</Code>
              </Table.Td>
              <Table.Td>{app.grantTypes.join(', ')}</Table.Td>
              <Table.Td>
                {app.isPublicClient ? (
                  <Text size="sm" c="dimmed">
                    Public client
                  </Text>
                ) : (
                  <Button size="xs" variant="default" onClick={() => regenerate.mutate(app.id)}>
                    Regenerate secret
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </>
  );
}

/** Addresses let in while sign-ups are restricted. */
export function WhitelistPage() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const emails = useQuery({ queryKey: adminKeys.whitelist, queryFn: adminApi.whitelistedEmails });
  const refresh = () => queryClient.invalidateQueries({ queryKey: adminKeys.whitelist });
  const add = useMutation({ mutationFn: () => adminApi.whitelistEmail(email.trim()), onSuccess: async () => (setEmail(''), await refresh()) });
  const remove = useMutation({ mutationFn: adminApi.removeWhitelistedEmail, onSuccess: refresh });
  return (
    <Stack>
      <PageHeader title="Whitelisted emails" />
      <Group align="flex-end">
        <TextInput label="Email" value={email} onChange={(event) => setEmail(event.currentTarget.value)} />
        <Button disabled={!email.includes('@')} loading={add.isPending} onClick={() => add.mutate()}>
          Whitelist
        </Button>
      </Group>
      {add.error ? <ErrorNotice error={add.error} /> : null}
      {emails.isPending ? <Skeleton h={60} /> : null}
      <Table>
        <Table.Tbody>
          {emails.data?.emails.map((entry) => (
            <Table.Tr key={entry.id}>
              <Table.Td>{entry.email}</Table.Td>
              <Table.Td>
                <Button size="xs" variant="subtle" color="red" onClick={() => remove.mutate(entry.id)}>
                  Remove
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

/** Flagged content, newest first, 20 to a page. */
export function ContentViolationsPage() {
  const [page, setPage] = useState(0);
  const format = useFormatters();
  const violations = useQuery({ queryKey: adminKeys.violations(page), queryFn: () => adminApi.contentViolations(page), placeholderData: keepPreviousData });
  return (
    <Stack>
      <PageHeader title="Content violations" />
      {violations.error ? <ErrorNotice error={violations.error} /> : null}
      <Table>
        <Table.Tbody>
          {violations.data?.violations.map((violation) => (
            <Table.Tr key={violation.id}>
              <Table.Td>{violation.organizationName}</Table.Td>
              <Table.Td>{violation.reasons.join(', ')}</Table.Td>
              <Table.Td>
                <Text size="sm" lineClamp={2}>
                  {violation.content}
                </Text>
              </Table.Td>
              <Table.Td>{format.relative(violation.flaggedAt)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Group>
        <Button size="xs" variant="default" disabled={page === 0} onClick={() => setPage(page - 1)}>
          Newer
        </Button>
        <Button size="xs" variant="default" disabled={!violations.data?.hasNextPage} onClick={() => setPage(page + 1)}>
          Older
        </Button>
      </Group>
    </Stack>
  );
}
