import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Badge, Button, Card, ErrorNotice, Group, Modal, PageHeader, SimpleGrid, Skeleton, Stack, Table, Text, useFormatters, useParams } from '@engram/console-kit';
import { NumberInput } from '@engram/console-kit/widgets';
import { adminApi, adminKeys } from './admin-api.js';
import { OrganizationBilling } from './organization-billing.js';

function Statistic({ label, value }: { label: string; value: number | undefined }) {
  const format = useFormatters();
  return (
    <Card withBorder radius="md" p="sm">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={600} size="lg">
        {format.number(value)}
      </Text>
    </Card>
  );
}

/** One organization: its usage, members and credits, and the ban that shuts off all of its traffic. */
export function OrganizationPage() {
  const { organizationId = '' } = useParams();
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState<number | string>(100);
  const [confirmingBan, setConfirmingBan] = useState(false);
  const [cancelledRuns, setCancelledRuns] = useState<number | null>(null);
  const key = adminKeys.organization(organizationId);
  const organization = useQuery({ queryKey: key, queryFn: () => adminApi.organization(organizationId) });
  const statistics = useQuery({ queryKey: [...key, 'statistics'], queryFn: () => adminApi.statistics(organizationId) });
  const members = useQuery({ queryKey: [...key, 'members'], queryFn: () => adminApi.members(organizationId) });
  const credits = useQuery({ queryKey: [...key, 'credits'], queryFn: () => adminApi.credits(organizationId) });
  const refresh = () => queryClient.invalidateQueries({ queryKey: adminKeys.all });
  const ban = useMutation({
    /** Answers how many runs in flight the ban cancelled (null for an unban). */
    mutationFn: async (banned: boolean): Promise<number | null> => {
      if (banned) return (await adminApi.ban(organizationId)).cancelledRuns;
      await adminApi.unban(organizationId);
      return null;
    },
    onSuccess: async (cancelled) => {
      setConfirmingBan(false);
      setCancelledRuns(cancelled);
      await refresh();
    },
  });
  const changeCredits = useMutation({
    mutationFn: (direction: 'add' | 'remove') => adminApi.changeCredits(organizationId, direction, Number(amount)),
    onSuccess: refresh,
  });

  if (organization.error) return <ErrorNotice error={organization.error} onRetry={() => void organization.refetch()} />;
  if (!organization.data) return <Skeleton h={200} />;
  const banned = organization.data.bannedAt !== null;
  return (
    <Stack>
      <PageHeader
        title={organization.data.name}
        description={organization.data.id}
        actions={
          <Group>
            {banned ? <Badge color="red">Banned</Badge> : <Badge color="green" variant="light">Active</Badge>}
            <Button color={banned ? 'green' : 'red'} variant="light" loading={ban.isPending} onClick={() => (banned ? ban.mutate(false) : setConfirmingBan(true))}>
              {banned ? 'Unban organization' : 'Ban organization'}
            </Button>
          </Group>
        }
      />
      {confirmingBan ? (
        <Modal opened onClose={() => setConfirmingBan(false)} title={`Ban ${organization.data.name}?`} centered>
          <Stack>
            {ban.error ? <ErrorNotice error={ban.error} title="The organization was not banned" /> : null}
            <Text size="sm">
              Every API key, session and OAuth token of this organization is refused from now on, and its runs in flight are cancelled
              {statistics.data ? ` (${statistics.data.activeRuns} now)` : ''}. Unbanning restores access.
            </Text>
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setConfirmingBan(false)}>
                Cancel
              </Button>
              <Button color="red" loading={ban.isPending} onClick={() => ban.mutate(true)}>
                Ban organization
              </Button>
            </Group>
          </Stack>
        </Modal>
      ) : null}
      {!confirmingBan && ban.error ? <ErrorNotice error={ban.error} /> : null}
      {banned && cancelledRuns !== null ? (
        <Alert color="red" variant="light" data-testid="ban-notice">
          Banned: {cancelledRuns === 1 ? '1 run in flight was' : `${cancelledRuns} runs in flight were`} cancelled.
        </Alert>
      ) : null}
      <SimpleGrid cols={{ base: 2, sm: 3, md: 6 }}>
        <Statistic label="Members" value={statistics.data?.members} />
        <Statistic label="Projects" value={statistics.data?.projects} />
        <Statistic label="Agents" value={statistics.data?.agents} />
        <Statistic label="API keys" value={statistics.data?.apiKeys} />
        <Statistic label="Runs (30 days)" value={statistics.data?.runsLast30Days} />
        <Statistic label="Active runs" value={statistics.data?.activeRuns} />
      </SimpleGrid>
      <Card withBorder radius="md">
        <Group justify="space-between" align="flex-end">
          <Stack gap={2}>
            <Text size="sm" c="dimmed">
              Credits
            </Text>
            <Text fw={700} size="xl" data-testid="credit-balance">
              {credits.data ? credits.data.credits : '…'}
            </Text>
          </Stack>
          <Group align="flex-end">
            <NumberInput label="Amount" min={1} value={amount} onChange={setAmount} w={140} />
            <Button loading={changeCredits.isPending} onClick={() => changeCredits.mutate('add')}>
              Add credits
            </Button>
            <Button variant="default" loading={changeCredits.isPending} onClick={() => changeCredits.mutate('remove')}>
              Remove credits
            </Button>
          </Group>
        </Group>
        {changeCredits.error ? <ErrorNotice error={changeCredits.error} /> : null}
      </Card>
      <OrganizationBilling organizationId={organizationId} />
      <Card withBorder radius="md">
        <Text fw={600} mb="sm">
          Members
        </Text>
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Email</Table.Th>
              <Table.Th>Role</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {members.data?.users.map((member) => (
              <Table.Tr key={member.id}>
                <Table.Td>{member.name}</Table.Td>
                <Table.Td>{member.email ?? '—'}</Table.Td>
                <Table.Td>{member.role}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Card>
    </Stack>
  );
}
