import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Button,
  Card,
  EmptyState,
  ErrorNotice,
  Group,
  Link,
  NameSearch,
  PageHeader,
  Pager,
  Skeleton,
  Table,
  Text,
  Tooltip,
  useDebouncedValue,
  useFormatters,
  useNavigate,
  useProject,
} from '@engram/console-kit';
import { IconDatabase, IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { ConfirmDialog } from '../confirm-dialog.js';
import { useMemberPermissions } from '../queries.js';
import { useOrganizationId } from '../templates/template-queries.js';
import { DatasetModal } from './dataset-dialogs.js';
import { datasetKeys } from './dataset-queries.js';
import { datasetsApi, type Dataset } from './datasets-api.js';

const PAGE = 20;

function DatasetRow({ dataset }: { dataset: Dataset }) {
  const format = useFormatters();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const organizationId = useOrganizationId();
  const { can } = useMemberPermissions();
  const [renaming, setRenaming] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const remove = useMutation({
    mutationFn: () => datasetsApi.delete(dataset.id),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: datasetKeys.all(organizationId) });
      setDeleting(false);
    },
  });
  return (
    <Table.Tr style={{ cursor: 'pointer' }} onClick={() => void navigate(dataset.id)} data-testid={`dataset-${dataset.name}`}>
      <Table.Td>
        <Text size="sm" fw={600} component={Link} to={dataset.id} onClick={(event) => event.stopPropagation()} c="var(--mantine-color-text)">
          {dataset.name}
        </Text>
        {dataset.description ? (
          <Text size="xs" c="dimmed" truncate maw={420}>
            {dataset.description}
          </Text>
        ) : null}
      </Table.Td>
      <Table.Td>
        <Text size="xs" c="dimmed">
          {format.relative(dataset.updatedAt)}
        </Text>
      </Table.Td>
      <Table.Td onClick={(event) => event.stopPropagation()}>
        <Group gap={4} justify="flex-end">
          {can('update_datasets') ? (
            <Tooltip label="Rename">
              <ActionIcon variant="subtle" color="gray" aria-label={`Rename ${dataset.name}`} onClick={() => setRenaming(true)}>
                <IconPencil size={16} />
              </ActionIcon>
            </Tooltip>
          ) : null}
          {can('delete_datasets') ? (
            <Tooltip label="Delete">
              <ActionIcon variant="subtle" color="red" aria-label={`Delete ${dataset.name}`} onClick={() => setDeleting(true)}>
                <IconTrash size={16} />
              </ActionIcon>
            </Tooltip>
          ) : null}
        </Group>
        {renaming ? <DatasetModal dataset={dataset} onClose={() => setRenaming(false)} /> : null}
        {deleting ? (
          <ConfirmDialog title={`Delete ${dataset.name}?`} confirmLabel="Delete dataset" mutation={remove} onConfirm={() => remove.mutate()} onClose={() => setDeleting(false)}>
            The dataset, its items and its runs are deleted.
          </ConfirmDialog>
        ) : null}
      </Table.Td>
    </Table.Tr>
  );
}

/** The project's datasets: messages with the answers expected of them, run against template versions. */
export function DatasetsPage() {
  const project = useProject();
  const navigate = useNavigate();
  const organizationId = useOrganizationId();
  const { can } = useMemberPermissions();
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 250);
  const [offset, setOffset] = useState(0);
  const [creating, setCreating] = useState(false);
  const filter = { search: debounced || undefined, projectId: project.id, offset, limit: PAGE };
  const datasets = useQuery({
    queryKey: datasetKeys.list(organizationId, filter),
    queryFn: () => datasetsApi.list(filter),
    placeholderData: keepPreviousData,
  });

  return (
    <>
      <PageHeader
        title="Datasets"
        description={`Questions for the agents of ${project.name}, with the answers expected of them, run against template versions and compared`}
        actions={
          can('create_datasets') ? (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              New dataset
            </Button>
          ) : null
        }
      />
      {creating ? <DatasetModal onClose={() => setCreating(false)} onSaved={(dataset) => void navigate(dataset.id)} /> : null}
      <NameSearch
        value={search}
        onChange={(value) => {
          setSearch(value);
          setOffset(0);
        }}
        label="Search datasets"
        mb="lg"
      />
      {datasets.error ? <ErrorNotice error={datasets.error} onRetry={() => void datasets.refetch()} /> : null}
      {datasets.isPending ? (
        <Skeleton h={96} radius="md" />
      ) : datasets.data && datasets.data.datasets.length === 0 ? (
        <EmptyState icon={<IconDatabase size={28} />} title={debounced ? 'No dataset matches this name' : 'No datasets in this project yet'}>
          {debounced ? 'Try another name.' : 'Collect the questions your agents must answer well, then run them against each version of a template.'}
        </EmptyState>
      ) : datasets.data ? (
        <Card withBorder radius="lg" p={0}>
          <Table verticalSpacing="sm" horizontalSpacing="md" highlightOnHover data-testid="datasets-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Dataset</Table.Th>
                <Table.Th>Updated</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {datasets.data.datasets.map((dataset) => (
                <DatasetRow key={dataset.id} dataset={dataset} />
              ))}
            </Table.Tbody>
          </Table>
        </Card>
      ) : null}
      <Pager offset={offset} limit={PAGE} hasNextPage={datasets.data?.hasNextPage ?? false} onChange={setOffset} />
    </>
  );
}
