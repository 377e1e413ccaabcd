import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Avatar, Badge, Card, consoleApi, ErrorNotice, Group, PageHeader, Pager, queryKeys, Skeleton, Stack, Table, Text, useFormatters } from '@engram/console-kit';

const PAGE_SIZE = 20;

export function MembersPage() {
  const [offset, setOffset] = useState(0);
  const format = useFormatters();
  const members = useQuery({
    queryKey: [...queryKeys.members, offset],
    queryFn: () => consoleApi.members({ offset, limit: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <PageHeader title="Members" description="People in this organization and their roles." />
      {members.error ? <ErrorNotice error={members.error} onRetry={() => void members.refetch()} /> : null}
      <Card withBorder radius="lg" p={0}>
        {members.isPending ? (
          <Stack p="md">
            <Skeleton h={20} />
          </Stack>
        ) : (
          <Table.ScrollContainer minWidth={520}>
            <Table verticalSpacing="sm" horizontalSpacing="md">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Member</Table.Th>
                  <Table.Th>Role</Table.Th>
                  <Table.Th>Joined</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {members.data?.members.map((member) => (
                  <Table.Tr key={member.id}>
                    <Table.Td>
                      <Group gap="sm" wrap="nowrap">
                        <Avatar radius="xl" size={30} color="engram">
                          {member.name.slice(0, 1).toUpperCase()}
                        </Avatar>
                        <Stack gap={0}>
                          <Text size="sm" fw={500}>
                            {member.name}
                          </Text>
                          <Text size="xs" c="dimmed">
                            {member.email}
                          </Text>
                        </Stack>
                      </Group>
                    </Table.Td>
                    <Table.Td>
                      <Badge variant="light">{member.role}</Badge>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" c="dimmed">
                        {format.dateTime(member.createdAt)}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Card>
      <Pager offset={offset} limit={PAGE_SIZE} hasNextPage={members.data?.hasNextPage ?? false} onChange={setOffset} />
    </>
  );
}
