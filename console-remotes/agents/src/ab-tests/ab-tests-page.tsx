import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Badge,
  Button,
  Card,
  EmptyState,
  ErrorNotice,
  Group,
  Link,
  Modal,
  PageHeader,
  Pager,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  useFormatters,
  useNavigate,
  useProject,
} from '@engram/console-kit';
import { Textarea } from '@engram/console-kit/widgets';
import { IconArrowsSplit, IconPlus } from '@tabler/icons-react';
import { useMemberPermissions } from '../queries.js';
import { useOrganizationId } from '../templates/template-queries.js';
import { abTestKeys } from './ab-test-queries.js';
import { abTestsApi } from './ab-tests-api.js';

const PAGE = 20;

function NewAbTestModal({ onClose }: { onClose: () => void }) {
  const project = useProject();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const organizationId = useOrganizationId();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useMutation({
    mutationFn: () => abTestsApi.create({ name, description: description.trim() ? description : null, projectId: project.id }),
    onSuccess: async (abTest) => {
      await queryClient.invalidateQueries({ queryKey: abTestKeys.all(organizationId) });
      void navigate(abTest.id);
    },
  });
  return (
    <Modal opened onClose={onClose} title="New A/B test" centered>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <Stack>
          {create.error ? <ErrorNotice error={create.error} title="The A/B test was not created" /> : null}
          <Text size="sm" c="dimmed">
            Attach two or more saved versions of a template as arms; each end user then gets an agent from the arm their identity is assigned to.
          </Text>
          <TextInput label="Name" value={name} onChange={(event) => setName(event.currentTarget.value)} data-autofocus />
          <Textarea label="Description" autosize minRows={2} value={description} onChange={(event) => setDescription(event.currentTarget.value)} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create A/B test
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** The project's A/B tests: versions of a template splitting real users, compared by their feedback. */
export function AbTestsPage() {
  const project = useProject();
  const format = useFormatters();
  const navigate = useNavigate();
  const organizationId = useOrganizationId();
  const { can } = useMemberPermissions();
  const [offset, setOffset] = useState(0);
  const [creating, setCreating] = useState(false);
  const filter = { projectId: project.id, offset, limit: PAGE };
  const abTests = useQuery({ queryKey: abTestKeys.list(organizationId, filter), queryFn: () => abTestsApi.list(filter), placeholderData: keepPreviousData });
  return (
    <>
      <PageHeader
        title="A/B tests"
        description={`Versions of a template of ${project.name} splitting real users, compared by their feedback`}
        actions={
          can('create_ab_tests') ? (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              New A/B test
            </Button>
          ) : null
        }
      />
      {creating ? <NewAbTestModal onClose={() => setCreating(false)} /> : null}
      {abTests.error ? <ErrorNotice error={abTests.error} onRetry={() => void abTests.refetch()} /> : null}
      {abTests.isPending ? (
        <Skeleton h={96} radius="md" />
      ) : abTests.data && abTests.data.abTests.length === 0 ? (
        <EmptyState icon={<IconArrowsSplit size={28} />} title="No A/B tests in this project yet">
          Try two versions of a template on real users, see which one they like better, and promote it to every agent.
        </EmptyState>
      ) : abTests.data ? (
        <Card withBorder radius="lg" p={0}>
          <Table verticalSpacing="sm" horizontalSpacing="md" highlightOnHover data-testid="ab-tests-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>A/B test</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Created</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {abTests.data.abTests.map((abTest) => (
                <Table.Tr key={abTest.id} style={{ cursor: 'pointer' }} onClick={() => void navigate(abTest.id)} data-testid={`ab-test-${abTest.name}`}>
                  <Table.Td>
                    <Text size="sm" fw={600} component={Link} to={abTest.id} onClick={(event) => event.stopPropagation()} c="var(--mantine-color-text)">
                      {abTest.name}
                    </Text>
                    {abTest.description ? (
                      <Text size="xs" c="dimmed" truncate maw={420}>
                        {abTest.description}
                      </Text>
                    ) : null}
                  </Table.Td>
                  <Table.Td>
                    <Badge size="sm" variant="light" color={abTest.status === 'running' ? 'blue' : 'gray'} tt="none">
                      {abTest.status}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" c="dimmed">
                      {format.relative(abTest.createdAt)}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Card>
      ) : null}
      <Pager offset={offset} limit={PAGE} hasNextPage={abTests.data?.hasNextPage ?? false} onChange={setOffset} />
    </>
  );
}
