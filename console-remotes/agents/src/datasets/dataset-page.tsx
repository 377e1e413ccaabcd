import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Anchor,
  Badge,
  Button,
  Card,
  ErrorNotice,
  Group,
  Link,
  PageHeader,
  Pager,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
  Tooltip,
  useFormatters,
  useNavigate,
  useParams,
} from '@engram/console-kit';
import { Checkbox, Progress } from '@engram/console-kit/widgets';
import { IconArrowsDiff, IconDownload, IconFileImport, IconPencil, IconPlayerPlay, IconPlus, IconTrash } from '@tabler/icons-react';
import { ConfirmDialog } from '../confirm-dialog.js';
import { useMemberPermissions } from '../queries.js';
import { useOrganizationId } from '../templates/template-queries.js';
import { DatasetModal, ImportModal, ItemModal, RunModal } from './dataset-dialogs.js';
import { datasetKeys, useDataset, useDatasetItems, useDatasetRuns } from './dataset-queries.js';
import { datasetsApi, exportUrl, type Dataset, type DatasetItem, type DatasetRun } from './datasets-api.js';
import { runProgress } from './run-comparison.js';

const ITEM_PAGE = 25;

const RUN_STATUS_COLORS: Record<DatasetRun['status'], string> = { running: 'blue', completed: 'teal', failed: 'red' };

function ItemRow({ datasetId, item, index }: { datasetId: string; item: DatasetItem; index: number }) {
  const queryClient = useQueryClient();
  const organizationId = useOrganizationId();
  const { can } = useMemberPermissions();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const remove = useMutation({
    mutationFn: () => datasetsApi.deleteItem(datasetId, item.id),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: datasetKeys.dataset(organizationId, datasetId) });
      setDeleting(false);
    },
  });
  return (
    <Table.Tr data-testid="dataset-item">
      <Table.Td>
        <Text size="xs" c="dimmed">
          {index}
        </Text>
      </Table.Td>
      <Table.Td>
        {item.createMessage.role === 'system' ? (
          <Badge size="xs" variant="outline" tt="none" mr={6}>
            system
          </Badge>
        ) : null}
        <Text span size="sm" data-testid="item-message" style={{ whiteSpace: 'pre-wrap' }}>
          {item.createMessage.content}
        </Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm" data-testid="item-expected">
          {item.expectedAnswer ?? ''}
        </Text>
        {item.graderNote ? (
          <Text size="xs" c="dimmed">
            Grader: {item.graderNote}
          </Text>
        ) : null}
      </Table.Td>
      <Table.Td>
        <Badge size="sm" variant="light" tt="none" data-testid="item-scorer">
          {item.scorer ?? 'not scored'}
        </Badge>
      </Table.Td>
      <Table.Td>
        <Group gap={4} justify="flex-end" wrap="nowrap">
          {can('update_dataset_items') ? (
            <Tooltip label="Edit">
              <ActionIcon variant="subtle" color="gray" aria-label={`Edit item ${index}`} onClick={() => setEditing(true)}>
                <IconPencil size={16} />
              </ActionIcon>
            </Tooltip>
          ) : null}
          {can('delete_dataset_items') ? (
            <Tooltip label="Delete">
              <ActionIcon variant="subtle" color="red" aria-label={`Delete item ${index}`} onClick={() => setDeleting(true)}>
                <IconTrash size={16} />
              </ActionIcon>
            </Tooltip>
          ) : null}
        </Group>
        {editing ? <ItemModal datasetId={datasetId} item={item} onClose={() => setEditing(false)} /> : null}
        {deleting ? (
          <ConfirmDialog title="Delete this item?" confirmLabel="Delete item" mutation={remove} onConfirm={() => remove.mutate()} onClose={() => setDeleting(false)}>
            The item goes from the dataset; the results earlier runs recorded for it stay with those runs.
          </ConfirmDialog>
        ) : null}
      </Table.Td>
    </Table.Tr>
  );
}

function ItemsSection({ dataset }: { dataset: Dataset }) {
  const { can } = useMemberPermissions();
  const [offset, setOffset] = useState(0);
  const [adding, setAdding] = useState(false);
  const [importing, setImporting] = useState(false);
  const items = useDatasetItems(dataset.id, { offset, limit: ITEM_PAGE });
  return (
    <Stack gap="sm" mb="xl">
      <Group justify="space-between">
        <Title order={4}>
          Items{' '}
          {items.data ? (
            <Text span c="dimmed" fz="sm" data-testid="item-total">
              {items.data.total}
            </Text>
          ) : null}
        </Title>
        <Group gap="xs">
          <Button variant="default" size="xs" leftSection={<IconDownload size={14} />} component="a" href={exportUrl(dataset.id)} download>
            Export JSONL
          </Button>
          {can('create_dataset_items') ? (
            <>
              <Button variant="default" size="xs" leftSection={<IconFileImport size={14} />} onClick={() => setImporting(true)}>
                Import JSONL
              </Button>
              <Button size="xs" leftSection={<IconPlus size={14} />} onClick={() => setAdding(true)}>
                Add item
              </Button>
            </>
          ) : null}
        </Group>
      </Group>
      {adding ? <ItemModal datasetId={dataset.id} onClose={() => setAdding(false)} /> : null}
      {importing ? <ImportModal datasetId={dataset.id} onClose={() => setImporting(false)} /> : null}
      {items.error ? <ErrorNotice error={items.error} onRetry={() => void items.refetch()} /> : null}
      {items.isPending ? (
        <Skeleton h={96} radius="md" />
      ) : items.data && items.data.total === 0 ? (
        <Card withBorder radius="lg" p="lg">
          <Text size="sm" c="dimmed" ta="center">
            No items yet. Add the messages to send, each with the answer expected of it, or import them from a JSONL file.
          </Text>
        </Card>
      ) : items.data ? (
        <Card withBorder radius="lg" p={0}>
          <Table verticalSpacing="xs" horizontalSpacing="md" data-testid="items-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={40}>#</Table.Th>
                <Table.Th>Message</Table.Th>
                <Table.Th>Expected</Table.Th>
                <Table.Th>Scorer</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.data.items.map((item, index) => (
                <ItemRow key={item.id} datasetId={dataset.id} item={item} index={offset + index + 1} />
              ))}
            </Table.Tbody>
          </Table>
        </Card>
      ) : null}
      <Pager offset={offset} limit={ITEM_PAGE} hasNextPage={items.data?.hasNextPage ?? false} onChange={setOffset} total={items.data?.total} />
    </Stack>
  );
}

function RunsSection({ dataset }: { dataset: Dataset }) {
  const format = useFormatters();
  const navigate = useNavigate();
  const { can } = useMemberPermissions();
  const [starting, setStarting] = useState(false);
  const [chosen, setChosen] = useState<string[]>([]);
  const runs = useDatasetRuns(dataset.id);
  const toggle = (runId: string, checked: boolean) =>
    setChosen((current) => (checked ? [...current.filter((id) => id !== runId), runId].slice(-2) : current.filter((id) => id !== runId)));
  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Title order={4}>Runs</Title>
        <Group gap="xs">
          <Button
            variant="default"
            size="xs"
            leftSection={<IconArrowsDiff size={14} />}
            disabled={chosen.length !== 2}
            onClick={() => void navigate(`compare?base=${encodeURIComponent(chosen[0]!)}&other=${encodeURIComponent(chosen[1]!)}`)}
          >
            Compare the two chosen
          </Button>
          {/* What the API asks of a run: it makes an agent per item from the version and messages it. */}
          {can('update_datasets', 'read_templates', 'create_agents', 'message_agents') ? (
            <Button size="xs" leftSection={<IconPlayerPlay size={14} />} onClick={() => setStarting(true)}>
              Run against…
            </Button>
          ) : null}
        </Group>
      </Group>
      {starting ? <RunModal dataset={dataset} onClose={() => setStarting(false)} onStarted={() => setStarting(false)} /> : null}
      {runs.error ? <ErrorNotice error={runs.error} onRetry={() => void runs.refetch()} /> : null}
      {runs.isPending ? (
        <Skeleton h={72} radius="md" />
      ) : runs.data && runs.data.length === 0 ? (
        <Card withBorder radius="lg" p="lg">
          <Text size="sm" c="dimmed" ta="center">
            No runs yet. Run the dataset against a saved version of a template to see how each item is answered.
          </Text>
        </Card>
      ) : runs.data ? (
        <Card withBorder radius="lg" p={0}>
          <Table verticalSpacing="xs" horizontalSpacing="md" data-testid="runs-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={40} />
                <Table.Th>Version</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Progress</Table.Th>
                <Table.Th>Started</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {runs.data.map((run) => {
                const progress = runProgress(run);
                return (
                  <Table.Tr key={run.id} data-testid="dataset-run" data-status={run.status} data-version={run.templateVersion}>
                    <Table.Td>
                      <Checkbox
                        aria-label={`Compare the run of ${run.templateVersion}`}
                        checked={chosen.includes(run.id)}
                        onChange={(event) => toggle(run.id, event.currentTarget.checked)}
                      />
                    </Table.Td>
                    <Table.Td>
                      <Anchor component={Link} to={`runs/${run.id}`} size="sm" fw={600}>
                        {run.templateVersion}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>
                      <Badge size="sm" variant="light" color={RUN_STATUS_COLORS[run.status]} tt="none">
                        {run.status}
                      </Badge>
                    </Table.Td>
                    <Table.Td miw={180}>
                      <Progress value={progress.percent} size="sm" aria-label={`${run.templateVersion} progress`} />
                      <Text size="xs" c="dimmed" data-testid="run-progress">
                        {progress.finished} of {progress.total} items{run.counts.failed ? `, ${run.counts.failed} failed` : ''}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs" c="dimmed">
                        {format.relative(run.startedAt)}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Card>
      ) : null}
    </Stack>
  );
}

/** A dataset: its items (added, edited, imported and exported as JSONL) and its runs against template versions. */
export function DatasetPage() {
  const { datasetId = '' } = useParams();
  const dataset = useDataset(datasetId);
  const [renaming, setRenaming] = useState(false);
  const { can } = useMemberPermissions();
  if (dataset.error) return <ErrorNotice error={dataset.error} title="The dataset could not be loaded" onRetry={() => void dataset.refetch()} />;
  if (!dataset.data) return <Skeleton h={160} radius="md" />;
  return (
    <>
      <PageHeader
        title={<span data-testid="dataset-name">{dataset.data.name}</span>}
        description={dataset.data.description ?? undefined}
        actions={
          <Group gap="xs">
            <Button variant="subtle" component={Link} to=".." relative="path">
              All datasets
            </Button>
            {can('update_datasets') ? (
              <Button variant="default" leftSection={<IconPencil size={16} />} onClick={() => setRenaming(true)}>
                Rename
              </Button>
            ) : null}
          </Group>
        }
      />
      {renaming ? <DatasetModal dataset={dataset.data} onClose={() => setRenaming(false)} /> : null}
      <ItemsSection dataset={dataset.data} />
      <RunsSection dataset={dataset.data} />
    </>
  );
}
