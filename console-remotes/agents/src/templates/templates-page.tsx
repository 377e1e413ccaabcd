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
  NameSearch,
  PageHeader,
  Pager,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  useDebouncedValue,
  useFormatters,
  useNavigate,
  useProject,
  useV1,
} from '@engram/console-kit';
import { Select } from '@engram/console-kit/widgets';
import { IconPlus, IconTemplate } from '@tabler/icons-react';
import { agentKeys, useMemberPermissions } from '../queries.js';
import { templateKeys, useOrganizationId } from './template-queries.js';
import { templatesApi } from './templates-api.js';

const PAGE = 20;

/** A template from one of the project's agents: its state becomes the template's working state. */
function NewTemplateModal({ onClose }: { onClose: () => void }) {
  const v1 = useV1();
  const project = useProject();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const organizationId = useOrganizationId();
  const [name, setName] = useState('');
  const [agentId, setAgentId] = useState<string | null>(null);
  const [agentSearch, setAgentSearch] = useState('');
  const [debouncedSearch] = useDebouncedValue(agentSearch.trim(), 250);
  const filter = { project_id: project.id, query_text: debouncedSearch || undefined, limit: 50 };
  const agents = useQuery({ queryKey: agentKeys.list(v1, filter), queryFn: () => v1.listAgents(filter) });
  const create = useMutation({
    mutationFn: () => templatesApi.create({ name: name.trim(), agentId: agentId!, projectId: project.id }),
    onSuccess: async (template) => {
      await queryClient.invalidateQueries({ queryKey: templateKeys.all(organizationId) });
      void navigate(template.id);
    },
  });
  return (
    <Modal opened onClose={onClose} title="New template" centered>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <Stack>
          {create.error ? <ErrorNotice error={create.error} title="The template was not created" /> : null}
          <Text size="sm" c="dimmed">
            A template starts as a copy of an agent: its model, system prompt, tools and memory blocks. Write {'{{variable}}'} in a block or the system
            prompt to fill it per agent.
          </Text>
          <TextInput label="Name" description="3 to 50 letters, digits, dashes or underscores" value={name} onChange={(event) => setName(event.currentTarget.value)} required data-autofocus />
          <Select
            label="Agent to start from"
            placeholder="Choose an agent"
            data={(agents.data ?? []).map((agent) => ({ value: agent.id, label: agent.name }))}
            value={agentId}
            onChange={setAgentId}
            searchable
            searchValue={agentSearch}
            onSearchChange={setAgentSearch}
            nothingFoundMessage={agents.isPending ? 'Loading…' : 'No agent in this project matches'}
            required
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending} disabled={!agentId || !name.trim()}>
              Create template
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** The project's templates: search by name, open one in the editor, or make a new one from an agent. */
export function TemplatesPage() {
  const project = useProject();
  const format = useFormatters();
  const navigate = useNavigate();
  const organizationId = useOrganizationId();
  const { can } = useMemberPermissions();
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 250);
  const [offset, setOffset] = useState(0);
  const [creating, setCreating] = useState(false);
  const filter = { search: debounced || undefined, projectId: project.id, offset, limit: PAGE };
  const templates = useQuery({
    queryKey: templateKeys.list(organizationId, filter),
    queryFn: () => templatesApi.list(filter),
    placeholderData: keepPreviousData,
  });

  return (
    <>
      <PageHeader
        title="Templates"
        description={`Agent designs of ${project.name}, saved in versions, deployed to many agents and migrated together`}
        actions={
          can('create_templates') ? (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              New template
            </Button>
          ) : null
        }
      />
      {creating ? <NewTemplateModal onClose={() => setCreating(false)} /> : null}
      <NameSearch
        value={search}
        onChange={(value) => {
          setSearch(value);
          setOffset(0);
        }}
        label="Search templates"
        mb="lg"
      />
      {templates.error ? <ErrorNotice error={templates.error} onRetry={() => void templates.refetch()} /> : null}
      {templates.isPending ? (
        <Skeleton h={96} radius="md" />
      ) : templates.data && templates.data.agentTemplates.length === 0 ? (
        <EmptyState icon={<IconTemplate size={28} />} title={debounced ? 'No template matches this name' : 'No templates in this project yet'}>
          {debounced ? 'Try another name.' : 'Make a template of an agent, save a version, and create as many agents from it as you need.'}
        </EmptyState>
      ) : (
        <Card withBorder radius="lg" p={0}>
          <Table verticalSpacing="sm" horizontalSpacing="md" highlightOnHover data-testid="templates-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Template</Table.Th>
                <Table.Th>Version</Table.Th>
                <Table.Th>Updated</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {(templates.data?.agentTemplates ?? []).map((template) => (
                <Table.Tr key={template.id} style={{ cursor: 'pointer' }} onClick={() => void navigate(template.id)} data-testid="template-row">
                  <Table.Td>
                    <Text size="sm" fw={600} component={Link} to={template.id} onClick={(event) => event.stopPropagation()} c="var(--mantine-color-text)">
                      {template.name}
                    </Text>
                    {template.description ? (
                      <Text size="xs" c="dimmed" truncate maw={360}>
                        {template.description}
                      </Text>
                    ) : null}
                  </Table.Td>
                  <Table.Td>
                    <Group gap={6}>
                      <Badge variant="light" tt="none">
                        {template.latestDeployedVersion === '0' ? 'no version yet' : `v${template.latestDeployedVersion}`}
                      </Badge>
                      {template.hasUnsavedChanges ? (
                        <Badge variant="outline" color="yellow" tt="none">
                          unsaved changes
                        </Badge>
                      ) : null}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" c="dimmed">
                      {format.relative(template.updatedAt)}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Card>
      )}
      <Pager offset={offset} limit={PAGE} hasNextPage={templates.data?.hasNextPage ?? false} onChange={setOffset} />
    </>
  );
}
