import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import {
  Badge,
  Button,
  Card,
  ErrorNotice,
  Group,
  Link,
  PageHeader,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  ThemeIcon,
  useDebouncedValue,
  useFormatters,
  useMediaQuery,
  useNavigate,
  useProject,
  useV1,
  type Agent,
} from '@engram/console-kit';
import { MultiSelect } from '@engram/console-kit/widgets';
import { IconChevronLeft, IconChevronRight, IconPlus, IconRobot, IconSearch, IconTags } from '@tabler/icons-react';
import { agentKeys, useMemberPermissions, useTags } from './queries.js';
import { ImportAgentFileButton } from './workspace/settings-agent-file.js';

const PAGE = 20;

function Tags({ tags }: { tags: string[] }) {
  if (tags.length === 0) return null;
  return (
    <Group gap={4}>
      {tags.slice(0, 4).map((tag) => (
        <Badge key={tag} size="sm" variant="outline" tt="none">
          {tag}
        </Badge>
      ))}
      {tags.length > 4 ? (
        <Text size="xs" c="dimmed">
          +{tags.length - 4}
        </Text>
      ) : null}
    </Group>
  );
}

function AgentCards({ agents }: { agents: Agent[] }) {
  const format = useFormatters();
  return (
    <Stack gap="sm">
      {agents.map((agent) => (
        <Card key={agent.id} withBorder radius="lg" p="md" component={Link} to={agent.id} data-testid="agent-row" style={{ textDecoration: 'none' }}>
          <Group gap="sm" wrap="nowrap" align="flex-start">
            <ThemeIcon variant="light" radius="md" size={36}>
              <IconRobot size={20} />
            </ThemeIcon>
            <Stack gap={4} style={{ minWidth: 0, flex: 1 }}>
              <Text fw={600} truncate>
                {agent.name}
              </Text>
              <Text size="xs" c="dimmed" ff="monospace" truncate>
                {agent.model ?? agent.llm_config.model}
              </Text>
              <Tags tags={agent.tags} />
              <Text size="xs" c="dimmed">
                {agent.last_run_completion ? `Last run ${format.relative(agent.last_run_completion)}` : `Created ${format.relative(agent.created_at)}`}
              </Text>
            </Stack>
          </Group>
        </Card>
      ))}
    </Stack>
  );
}

function AgentTable({ agents }: { agents: Agent[] }) {
  const format = useFormatters();
  const navigate = useNavigate();
  return (
    <Card withBorder radius="lg" p={0}>
      <Table verticalSpacing="sm" horizontalSpacing="md" highlightOnHover data-testid="agents-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Agent</Table.Th>
            <Table.Th>Model</Table.Th>
            <Table.Th>Tags</Table.Th>
            <Table.Th>Last run</Table.Th>
            <Table.Th>Created</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {agents.map((agent) => (
            <Table.Tr key={agent.id} style={{ cursor: 'pointer' }} onClick={() => void navigate(agent.id)} data-testid="agent-row">
              <Table.Td>
                <Group gap="sm" wrap="nowrap">
                  <ThemeIcon variant="light" radius="md" size={30}>
                    <IconRobot size={17} />
                  </ThemeIcon>
                  <Stack gap={0} style={{ minWidth: 0 }}>
                    <Text size="sm" fw={600} component={Link} to={agent.id} onClick={(event) => event.stopPropagation()} c="var(--mantine-color-text)" truncate>
                      {agent.name}
                    </Text>
                    {agent.description ? (
                      <Text size="xs" c="dimmed" truncate maw={320}>
                        {agent.description}
                      </Text>
                    ) : null}
                  </Stack>
                </Group>
              </Table.Td>
              <Table.Td>
                <Text size="xs" ff="monospace">
                  {agent.model ?? agent.llm_config.model}
                </Text>
              </Table.Td>
              <Table.Td>
                <Tags tags={agent.tags} />
              </Table.Td>
              <Table.Td>
                <Text size="xs" c="dimmed">
                  {agent.last_run_completion ? format.relative(agent.last_run_completion) : 'Never'}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="xs" c="dimmed">
                  {format.relative(agent.created_at)}
                </Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Card>
  );
}

/** The project's agents: search by name, filter by tags, page by cursor. */
export function AgentsListPage() {
  const v1 = useV1();
  const project = useProject();
  const { can } = useMemberPermissions();
  const canCreate = can('create_agents');
  const wide = useMediaQuery('(min-width: 48em)', true);
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 250);
  const [tags, setTags] = useState<string[]>([]);
  const [cursors, setCursors] = useState<string[]>([]);
  const after = cursors.at(-1);
  const filter = { project_id: project.id, query_text: debounced || undefined, tags: tags.length ? tags : undefined, match_all_tags: tags.length > 1 };
  const agents = useQuery({
    queryKey: agentKeys.list(v1, { ...filter, after }),
    queryFn: () => v1.listAgents({ ...filter, limit: PAGE, ...(after ? { after } : {}) }),
    placeholderData: keepPreviousData,
  });
  const count = useQuery({ queryKey: agentKeys.count(v1, filter), queryFn: () => v1.countAgents(filter) });
  const tagOptions = useTags();
  const resetPaging = () => setCursors([]);
  const last = agents.data?.at(-1);
  const filtered = Boolean(debounced || tags.length);

  return (
    <>
      <PageHeader
        title="Agents"
        description={count.data !== undefined ? `${count.data} agent${count.data === 1 ? '' : 's'} in ${project.name}` : `Agents in ${project.name}`}
        actions={
          canCreate ? (
            <>
              <ImportAgentFileButton agentPath={(agentId) => agentId} size="sm" />
              <Button component={Link} to="new" leftSection={<IconPlus size={16} />}>
                New agent
              </Button>
            </>
          ) : null
        }
      />
      <Group gap="sm" mb="lg" align="flex-start">
        <TextInput
          placeholder="Search by name"
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(event) => {
            setSearch(event.currentTarget.value);
            resetPaging();
          }}
          w={{ base: '100%', sm: 320 }}
          aria-label="Search agents"
        />
        <MultiSelect
          placeholder={tags.length ? undefined : 'Filter by tags'}
          leftSection={<IconTags size={16} />}
          data={tagOptions.data ?? []}
          value={tags}
          onChange={(value) => {
            setTags(value);
            resetPaging();
          }}
          searchable
          clearable
          nothingFoundMessage="No tags yet"
          w={{ base: '100%', sm: 320 }}
          aria-label="Filter by tags"
        />
      </Group>
      {agents.error ? <ErrorNotice error={agents.error} onRetry={() => void agents.refetch()} /> : null}
      {agents.isPending ? (
        <Stack>
          <Skeleton h={48} radius="md" />
          <Skeleton h={48} radius="md" />
        </Stack>
      ) : agents.data && agents.data.length === 0 && cursors.length === 0 ? (
        <Card withBorder radius="lg" p="xl">
          <Stack align="center" gap="sm">
            <ThemeIcon size={52} radius="xl" variant="light">
              <IconRobot size={28} />
            </ThemeIcon>
            <Text fw={600}>{filtered ? 'No agent matches these filters' : 'No agents in this project yet'}</Text>
            <Text size="sm" c="dimmed" ta="center" maw={420}>
              {filtered
                ? 'Try another name or fewer tags.'
                : canCreate
                  ? 'An agent has a model, memory blocks it can edit, and tools. Create one and start chatting.'
                  : 'Agents appear here once a member whose role can create them adds one.'}
            </Text>
            {!filtered && canCreate ? (
              <Button mt="xs" component={Link} to="new" leftSection={<IconPlus size={16} />}>
                Create your first agent
              </Button>
            ) : null}
          </Stack>
        </Card>
      ) : wide ? (
        <AgentTable agents={agents.data ?? []} />
      ) : (
        <AgentCards agents={agents.data ?? []} />
      )}
      {cursors.length > 0 || (agents.data?.length ?? 0) >= PAGE ? (
        <Group justify="flex-end" mt="md" gap="xs">
          <Button size="xs" variant="default" leftSection={<IconChevronLeft size={14} />} disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
            Previous
          </Button>
          <Button
            size="xs"
            variant="default"
            rightSection={<IconChevronRight size={14} />}
            disabled={(agents.data?.length ?? 0) < PAGE || !last}
            onClick={() => last && setCursors([...cursors, last.id])}
          >
            Next
          </Button>
        </Group>
      ) : null}
    </>
  );
}
