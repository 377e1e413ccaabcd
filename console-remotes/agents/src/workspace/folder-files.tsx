import { useEffect, useRef, useState, type DragEvent } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Alert,
  Badge,
  Box,
  Button,
  ErrorNotice,
  errorMessage,
  Group,
  Loader,
  NativeSelect,
  Paper,
  Skeleton,
  Stack,
  Text,
  Tooltip,
  useFormatters,
  useV1,
} from '@engram/console-kit';
import { FileButton, Progress } from '@engram/console-kit/widgets';
import { IconAlertTriangle, IconTrash, IconUpload } from '@tabler/icons-react';
import { deleteFolderFile, listFolderFiles, uploadFile, type DuplicateHandling, type FileProcessingStatus, type FolderFile } from '../ade-api.js';
import { agentKeys, useMemberPermissions } from '../queries.js';
import { CursorPager, useCursorPages } from './cursor-pager.js';

const PAGE_SIZE = 20;
/** How often a folder's files are re-read while one of them is still being ingested. */
const INGESTION_POLL_MS = 1000;

const STATUS_COLORS: Record<FileProcessingStatus, string> = { pending: 'gray', parsing: 'blue', embedding: 'violet', completed: 'teal', error: 'red' };

const DUPLICATE_CHOICES: Array<{ value: DuplicateHandling; label: string }> = [
  { value: 'suffix', label: 'Same name: keep both' },
  { value: 'replace', label: 'Same name: replace' },
  { value: 'skip', label: 'Same name: keep the old' },
  { value: 'error', label: 'Same name: refuse' },
];

const isIngesting = (file: FolderFile) => file.processing_status !== 'completed' && file.processing_status !== 'error';

function readableSize(bytes: number | null): string | null {
  if (bytes === null) return null;
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} B`;
}

/** Where ingestion is: parsing has no chunk count yet, embedding counts its chunks. */
function IngestionProgress({ file }: { file: FolderFile }) {
  const format = useFormatters();
  const total = file.total_chunks ?? 0;
  const embedded = file.chunks_embedded ?? 0;
  const counted = file.processing_status === 'embedding' && total > 0;
  return (
    <Stack gap={2}>
      <Progress
        size="sm"
        value={counted ? (embedded / total) * 100 : 100}
        color={counted ? 'violet' : 'gray'}
        striped
        animated
        aria-label={`${file.file_name} ingestion progress`}
      />
      <Text size="xs" c="dimmed" data-testid="file-progress">
        {counted
          ? `${format.number(embedded)} / ${format.number(total)} chunks embedded`
          : file.processing_status === 'pending'
            ? 'Waiting to start…'
            : file.processing_status === 'parsing'
              ? 'Reading the text…'
              : 'Splitting into chunks…'}
      </Text>
    </Stack>
  );
}

function FileRow({ file, onDeleted }: { file: FolderFile; onDeleted: () => Promise<unknown> }) {
  const format = useFormatters();
  const remove = useMutation({ mutationFn: () => deleteFolderFile(file.source_id, file.id), onSuccess: onDeleted });
  const { can } = useMemberPermissions();
  const details = [readableSize(file.file_size), file.processing_status === 'completed' && file.total_chunks !== null ? `${format.number(file.total_chunks)} ${file.total_chunks === 1 ? 'chunk' : 'chunks'}` : null]
    .filter(Boolean)
    .join(' · ');
  return (
    <Box py={6} style={{ borderTop: '1px solid var(--mantine-color-default-border)' }} data-testid={`folder-file-${file.file_name}`} data-status={file.processing_status}>
      <Stack gap={4}>
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Text size="sm" fw={500} truncate title={file.file_name}>
              {file.file_name}
            </Text>
            <Group gap={6} wrap="nowrap">
              <Badge size="xs" variant="light" color={STATUS_COLORS[file.processing_status]} data-testid="file-status">
                {file.processing_status}
              </Badge>
              {details ? (
                <Text size="xs" c="dimmed" truncate>
                  {details}
                </Text>
              ) : null}
            </Group>
          </Stack>
          {can('delete_data_sources') ? (
            <Tooltip label="Delete the file and its chunks">
              <ActionIcon size="sm" variant="subtle" color="red" loading={remove.isPending} onClick={() => remove.mutate()} aria-label={`Delete ${file.file_name}`}>
                <IconTrash size={14} />
              </ActionIcon>
            </Tooltip>
          ) : null}
        </Group>
        {isIngesting(file) ? <IngestionProgress file={file} /> : null}
        {file.processing_status === 'error' ? (
          <Text size="xs" c="red" style={{ overflowWrap: 'anywhere' }} data-testid="file-error">
            {file.error_message ?? 'Ingestion failed.'}
          </Text>
        ) : null}
        {remove.error ? <ErrorNotice error={remove.error} title="Not deleted" /> : null}
      </Stack>
    </Box>
  );
}

type RefusedUpload = { name: string; error: unknown };

/** Drop files on it or pick them; they go up one after another, and the server's refusals are listed by file. */
function UploadZone({ folderId, onUploaded }: { folderId: string; onUploaded: () => Promise<unknown> }) {
  const [duplicateHandling, setDuplicateHandling] = useState<DuplicateHandling>('suffix');
  const [dragging, setDragging] = useState(false);
  const [refused, setRefused] = useState<RefusedUpload[]>([]);
  const [skipped, setSkipped] = useState<string[]>([]);
  const upload = useMutation({
    mutationFn: async (files: File[]) => {
      setRefused([]);
      setSkipped([]);
      for (const file of files) {
        try {
          const result = await uploadFile(folderId, file, duplicateHandling);
          if (result.skipped) setSkipped((names) => [...names, file.name]);
          // Each file shows up (and its progress starts) as soon as it is stored.
          await onUploaded();
        } catch (error) {
          setRefused((failures) => [...failures, { name: file.name, error }]);
        }
      }
    },
  });
  const start = (files: File[]) => {
    if (files.length > 0 && !upload.isPending) upload.mutate(files);
  };
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    start([...event.dataTransfer.files]);
  };
  return (
    <Stack gap={6}>
      <Paper
        withBorder
        radius="md"
        p="xs"
        bg={dragging ? 'var(--mantine-primary-color-light)' : undefined}
        style={{ borderStyle: 'dashed', borderColor: dragging ? 'var(--mantine-primary-color-filled)' : undefined }}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={drop}
        data-testid="upload-zone"
      >
        <Group gap="xs" justify="space-between">
          <Group gap={6} wrap="nowrap">
            {upload.isPending ? <Loader size={14} /> : <IconUpload size={16} color="var(--mantine-color-dimmed)" />}
            <Text size="xs" c="dimmed">
              {upload.isPending ? 'Uploading…' : 'Drop files here, or'}
            </Text>
            <FileButton onChange={start} multiple disabled={upload.isPending}>
              {(props) => (
                <Button {...props} size="compact-xs" variant="light" disabled={upload.isPending}>
                  Choose files
                </Button>
              )}
            </FileButton>
          </Group>
          <NativeSelect
            size="xs"
            variant="unstyled"
            data={DUPLICATE_CHOICES}
            value={duplicateHandling}
            onChange={(event) => setDuplicateHandling(event.currentTarget.value as DuplicateHandling)}
            aria-label="When the folder has a file of that name"
          />
        </Group>
      </Paper>
      {refused.map((failure, index) => (
        <Alert
          key={`${index}:${failure.name}`}
          color="red"
          variant="light"
          p="xs"
          icon={<IconAlertTriangle size={16} />}
          title={`${failure.name} was not uploaded`}
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={() => setRefused((failures) => failures.filter((each) => each !== failure))}
          role="alert"
        >
          {/* The server's own reason: a 415 names the accepted types, a 413 the size limit. */}
          <Text size="xs" style={{ overflowWrap: 'anywhere' }}>
            {errorMessage(failure.error)}
          </Text>
        </Alert>
      ))}
      {skipped.length > 0 ? (
        <Text size="xs" c="dimmed">
          Kept the files already there: {skipped.join(', ')}
        </Text>
      ) : null}
    </Stack>
  );
}

/** A folder's files, newest first, with their ingestion; re-read every second while one is still being ingested. */
export function FolderFiles({ agentId, folderId }: { agentId: string; folderId: string }) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const pages = useCursorPages();
  const page = useQuery({
    queryKey: agentKeys.folderFilePage(v1, folderId, pages.after),
    // One more than a page tells whether there is a next one.
    queryFn: () => listFolderFiles(folderId, { after: pages.after, limit: PAGE_SIZE + 1 }),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.some(isIngesting) ? INGESTION_POLL_MS : false),
  });
  const refreshFiles = () => queryClient.invalidateQueries({ queryKey: agentKeys.folderFiles(v1, folderId) });
  const { can } = useMemberPermissions();

  // Ingestion opens a file in the agent once its text is parsed, and deleting one closes it: the agent's
  // files follow every change of this list's files and statuses.
  const statuses = page.data?.map((file) => `${file.id}:${file.processing_status}`).join(',');
  const seenStatuses = useRef(statuses);
  useEffect(() => {
    if (statuses === undefined || statuses === seenStatuses.current) return;
    const first = seenStatuses.current === undefined;
    seenStatuses.current = statuses;
    if (first) return;
    void queryClient.invalidateQueries({ queryKey: agentKeys.files(v1, agentId) });
    // Open files are part of the agent's prompt.
    void queryClient.invalidateQueries({ queryKey: agentKeys.context(v1, agentId) });
  }, [statuses, queryClient, v1, agentId]);

  const files = (page.data ?? []).slice(0, PAGE_SIZE);
  return (
    <Stack gap={6}>
      {can('create_data_sources') ? <UploadZone folderId={folderId} onUploaded={refreshFiles} /> : null}
      {page.isPending ? (
        <Skeleton h={40} />
      ) : page.error ? (
        <ErrorNotice error={page.error} onRetry={() => void page.refetch()} />
      ) : (
        <Box>
          {files.length === 0 ? (
            <Text size="xs" c="dimmed">
              No files yet.
            </Text>
          ) : (
            files.map((file) => <FileRow key={file.id} file={file} onDeleted={refreshFiles} />)
          )}
          <CursorPager
            pages={pages}
            pageSize={PAGE_SIZE}
            shown={files.length}
            nextCursor={(page.data?.length ?? 0) > PAGE_SIZE ? (files.at(-1)?.id ?? null) : null}
            settled={page.isSuccess && !page.isPlaceholderData}
          />
        </Box>
      )}
    </Stack>
  );
}
