import { useState, type FormEvent } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Badge,
  Button,
  Card,
  ErrorNotice,
  Group,
  Modal,
  NativeSelect,
  PageHeader,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  useNavigate,
  useProject,
  useV1,
} from '@engram/console-kit';
import { MultiSelect, Select } from '@engram/console-kit/widgets';
import { IconPlus, IconUsersGroup } from '@tabler/icons-react';
import { usePermissions } from '../access/use-permissions.js';
import { useAgentPicker } from '../tools/attach-to-agent.js';
import { CursorPager, useCursorPages } from '../workspace/cursor-pager.js';
import { createGroup, listGroups, managerTypeLabel, MANAGER_TYPES, type ManagerType } from './groups-api.js';
import { groupKeys } from './group-keys.js';

const PAGE = 25;

/** Creates a group of agents of this project: what it is for, how its turns go, and who is in it. */
function NewGroupModal({ onClose }: { onClose: () => void }) {
  const v1 = useV1();
  const project = useProject();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const picker = useAgentPicker();
  const [description, setDescription] = useState('');
  const [managerType, setManagerType] = useState<ManagerType>('round_robin');
  const [memberIds, setMemberIds] = useState<string[]>([]);
  const [managerId, setManagerId] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const agentOptions = (picker.agents.data ?? []).map((agent) => ({ value: agent.id, label: agent.name }));
  const needsManager = managerType !== 'round_robin';

  const create = useMutation({
    mutationFn: async () => {
      const found: Record<string, string> = {};
      if (!description.trim()) found.description = 'Say what the group is for';
      if (memberIds.length === 0) found.members = 'Choose at least one member';
      if (needsManager && !managerId) found.manager = 'Choose the agent that manages the group';
      setErrors(found);
      if (Object.keys(found).length > 0) return null;
      return createGroup({
        description: description.trim(),
        agent_ids: memberIds,
        project_id: project.id,
        manager_config: needsManager && managerId ? { manager_type: managerType, manager_agent_id: managerId } : { manager_type: managerType },
      });
    },
    onSuccess: async (group) => {
      if (!group) return;
      await queryClient.invalidateQueries({ queryKey: groupKeys.all(v1) });
      onClose();
      void navigate(group.id);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <Modal opened onClose={onClose} title="New group" size="lg">
      <form onSubmit={submit} noValidate aria-label="New group">
        <Stack>
          {create.error ? <ErrorNotice error={create.error} title="The group was not created" /> : null}
          <TextInput label="Description" value={description} onChange={(event) => setDescription(event.currentTarget.value)} error={errors.description} data-autofocus />
          <NativeSelect
            label="Manager type"
            description={MANAGER_TYPES.find((option) => option.value === managerType)?.description}
            data={MANAGER_TYPES.map((option) => ({ value: option.value, label: option.label }))}
            value={managerType}
            onChange={(event) => setManagerType(event.currentTarget.value as ManagerType)}
          />
          {needsManager ? (
            <Select label="Manager agent" data={agentOptions} value={managerId} onChange={setManagerId} searchable error={errors.manager} placeholder="Choose an agent" />
          ) : null}
          <MultiSelect
            label="Members"
            description="In speaking order."
            data={agentOptions}
            value={memberIds}
            onChange={setMemberIds}
            searchable
            searchValue={picker.search}
            onSearchChange={picker.setSearch}
            nothingFoundMessage="No agent by that name"
            error={errors.members}
            placeholder={memberIds.length ? undefined : 'Choose agents of this project'}
          />
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create group
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** The project's multi-agent groups: what each is for, how its turns go, and how many members it has. */
export function GroupsPage() {
  const v1 = useV1();
  const project = useProject();
  const navigate = useNavigate();
  const { can } = usePermissions();
  const pages = useCursorPages();
  const [creating, setCreating] = useState(false);
  const groups = useQuery({
    queryKey: groupKeys.page(v1, project.id, pages.after),
    queryFn: () => listGroups(project.id, { after: pages.after, limit: PAGE }),
    placeholderData: keepPreviousData,
  });
  const shown = groups.data ?? [];

  return (
    <Stack>
      <PageHeader
        title="Groups"
        description="Agents that answer one conversation together: in turn, under a supervisor, picked by a manager, or with sleep-time agents tending memory."
        actions={
          can('createGroup') ? (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              New group
            </Button>
          ) : null
        }
      />
      {groups.error ? <ErrorNotice error={groups.error} onRetry={() => void groups.refetch()} /> : null}
      {groups.isPending ? <Skeleton h={120} /> : null}
      {groups.data && shown.length === 0 && pages.index === 0 ? (
        <Card withBorder padding="xl">
          <Stack align="center" gap="xs">
            <IconUsersGroup size={32} />
            <Text size="sm" c="dimmed">
              No groups yet: put agents together to have them answer as a team.
            </Text>
          </Stack>
        </Card>
      ) : null}
      {shown.length > 0 ? (
        <Table highlightOnHover verticalSpacing="sm" data-testid="groups-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Description</Table.Th>
              <Table.Th>Manager type</Table.Th>
              <Table.Th ta="right">Members</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.map((group) => (
              <Table.Tr
                key={group.id}
                style={{ cursor: 'pointer' }}
                tabIndex={0}
                data-testid="group-row"
                aria-label={`Open group ${group.description}`}
                onClick={() => void navigate(group.id)}
                onKeyDown={(event) => {
                  if (event.key === 'Enter') void navigate(group.id);
                }}
              >
                <Table.Td>
                  <Text size="sm" fw={600}>
                    {group.description}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Badge size="sm" variant="light" tt="none" data-testid="group-manager-type">
                    {managerTypeLabel(group.manager_type)}
                  </Badge>
                </Table.Td>
                <Table.Td ta="right">
                  <Text size="sm">{group.agent_ids.length}</Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
      <CursorPager pages={pages} pageSize={PAGE} shown={shown.length} nextCursor={shown.length === PAGE ? (shown.at(-1)?.id ?? null) : null} settled={!groups.isPlaceholderData} />
      {creating ? <NewGroupModal onClose={() => setCreating(false)} /> : null}
    </Stack>
  );
}
