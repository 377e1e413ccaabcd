import { useState, type FormEvent } from 'react';
import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ActionIcon, Box, Button, Card, Divider, ErrorNotice, Group, Skeleton, Stack, Text, TextInput, Tooltip, useV1 } from '@engram/console-kit';
import { Select } from '@engram/console-kit/widgets';
import { IconFolder, IconFolderPlus, IconPlugConnected, IconUnlink } from '@tabler/icons-react';
import { attachFolder, createFolder, detachFolder, listAgentFolders, listFolders, type Folder } from '../ade-api.js';
import { agentKeys, useMemberPermissions } from '../queries.js';
import { AgentFiles } from './agent-files.js';
import { CursorPager, useCursorPages } from './cursor-pager.js';
import { FolderFiles } from './folder-files.js';

const FOLDER_PAGE_SIZE = 10;
const PICKER_PAGE_SIZE = 50;

/** Attaching or detaching a folder changes the agent's folders, files, tools (the file tools) and prompt. */
function useRefreshAttachments(agentId: string) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: agentKeys.folders(v1, agentId) }),
      queryClient.invalidateQueries({ queryKey: agentKeys.files(v1, agentId) }),
      queryClient.invalidateQueries({ queryKey: agentKeys.agent(v1, agentId), exact: true }),
      queryClient.invalidateQueries({ queryKey: agentKeys.tools(v1, agentId) }),
      queryClient.invalidateQueries({ queryKey: agentKeys.context(v1, agentId) }),
    ]);
}

/**
 * The organization's folders, fifty at a time, to attach one. The attached folders on show are left out; one
 * attached on another page may be listed, and attaching it again changes nothing.
 */
function FolderPicker({ agentId, attachedIds, onDone }: { agentId: string; attachedIds: Set<string>; onDone: () => void }) {
  const v1 = useV1();
  const refresh = useRefreshAttachments(agentId);
  const folders = useInfiniteQuery({
    queryKey: agentKeys.orgFolderList(v1),
    queryFn: ({ pageParam }) => listFolders({ after: pageParam, limit: PICKER_PAGE_SIZE }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => (last.length === PICKER_PAGE_SIZE ? (last.at(-1)?.id ?? null) : null),
  });
  const attach = useMutation({
    mutationFn: (folderId: string) => attachFolder(agentId, folderId),
    onSuccess: async () => {
      await refresh();
      onDone();
    },
  });
  const options = (folders.data?.pages.flat() ?? []).filter((folder) => !attachedIds.has(folder.id)).map((folder) => ({ value: folder.id, label: folder.name }));
  return (
    <Stack gap={6}>
      <Group gap="xs" align="flex-end" wrap="nowrap">
        <Select
          style={{ flex: 1 }}
          size="xs"
          label="Attach a folder"
          placeholder={folders.isPending ? 'Loading folders…' : options.length ? 'Choose a folder' : 'No other folder: create one'}
          data={options}
          searchable
          onChange={(folderId) => folderId && attach.mutate(folderId)}
          disabled={attach.isPending}
        />
        <Button size="xs" variant="default" onClick={onDone}>
          Cancel
        </Button>
      </Group>
      {folders.hasNextPage ? (
        <Button size="compact-xs" variant="subtle" w="fit-content" loading={folders.isFetchingNextPage} onClick={() => void folders.fetchNextPage()}>
          Load older folders
        </Button>
      ) : null}
      {folders.error ? <ErrorNotice error={folders.error} title="The folders could not be listed" onRetry={() => void folders.refetch()} /> : null}
      {attach.error ? <ErrorNotice error={attach.error} title="The folder was not attached" /> : null}
    </Stack>
  );
}

function NewFolderForm({ agentId, onDone }: { agentId: string; onDone: () => void }) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const refresh = useRefreshAttachments(agentId);
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: async () => attachFolder(agentId, (await createFolder(name.trim())).id),
    onSuccess: async () => {
      await Promise.all([refresh(), queryClient.invalidateQueries({ queryKey: agentKeys.orgFolderList(v1) })]);
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim()) create.mutate();
  };
  return (
    <Box component="form" onSubmit={submit} aria-label="New folder">
      <Stack gap={6}>
        <Group gap="xs" align="flex-end" wrap="nowrap">
          <TextInput style={{ flex: 1 }} size="xs" label="New folder" placeholder="handbook" value={name} onChange={(event) => setName(event.currentTarget.value)} />
          <Button type="submit" size="xs" disabled={!name.trim()} loading={create.isPending}>
            Create and attach
          </Button>
          <Button size="xs" variant="default" onClick={onDone}>
            Cancel
          </Button>
        </Group>
        {create.error ? <ErrorNotice error={create.error} title="The folder was not created" /> : null}
      </Stack>
    </Box>
  );
}

function FolderCard({ agentId, folder }: { agentId: string; folder: Folder }) {
  const refresh = useRefreshAttachments(agentId);
  const detach = useMutation({ mutationFn: () => detachFolder(agentId, folder.id), onSuccess: refresh });
  const { can } = useMemberPermissions();
  return (
    <Card withBorder radius="md" p="sm" data-testid={`folder-${folder.name}`}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap">
          <Group gap={6} wrap="nowrap" style={{ minWidth: 0 }}>
            <IconFolder size={16} style={{ flexShrink: 0 }} />
            <Text size="sm" fw={600} truncate title={folder.name}>
              {folder.name}
            </Text>
          </Group>
          {can('update_agents') ? (
            <Tooltip label="Detach from this agent (the folder and its files stay)">
              <ActionIcon size="sm" variant="subtle" color="red" loading={detach.isPending} onClick={() => detach.mutate()} aria-label={`Detach ${folder.name}`}>
                <IconUnlink size={14} />
              </ActionIcon>
            </Tooltip>
          ) : null}
        </Group>
        {folder.description ? (
          <Text size="xs" c="dimmed" lineClamp={2}>
            {folder.description}
          </Text>
        ) : null}
        {detach.error ? <ErrorNotice error={detach.error} title="Not detached" /> : null}
        <FolderFiles agentId={agentId} folderId={folder.id} />
      </Stack>
    </Card>
  );
}

/** Folders and files: the folders the agent reads, their files' ingestion, uploads, and which files are open in its context. */
export function FilesPanel({ agentId }: { agentId: string }) {
  const v1 = useV1();
  const pages = useCursorPages();
  const [adding, setAdding] = useState<'pick' | 'create' | null>(null);
  const { can } = useMemberPermissions();
  const folders = useQuery({
    queryKey: agentKeys.folderPage(v1, agentId, pages.after),
    // One more than a page tells whether there is a next one.
    queryFn: () => listAgentFolders(agentId, { after: pages.after, limit: FOLDER_PAGE_SIZE + 1 }),
    placeholderData: keepPreviousData,
  });
  const shown = (folders.data ?? []).slice(0, FOLDER_PAGE_SIZE);
  return (
    <Stack gap="sm">
      <Group justify="space-between" gap="xs">
        <Text size="sm" fw={600}>
          Folders
        </Text>
        {adding === null ? (
          <Group gap="xs">
            {can('update_agents') ? (
              <Button size="xs" variant="light" leftSection={<IconPlugConnected size={14} />} onClick={() => setAdding('pick')}>
                Attach a folder
              </Button>
            ) : null}
            {can('update_agents', 'create_data_sources') ? (
              <Button size="xs" variant="light" leftSection={<IconFolderPlus size={14} />} onClick={() => setAdding('create')}>
                New folder
              </Button>
            ) : null}
          </Group>
        ) : null}
      </Group>
      {adding === 'pick' ? <FolderPicker agentId={agentId} attachedIds={new Set(shown.map((folder) => folder.id))} onDone={() => setAdding(null)} /> : null}
      {adding === 'create' ? <NewFolderForm agentId={agentId} onDone={() => setAdding(null)} /> : null}
      {folders.isPending ? (
        <Skeleton h={80} />
      ) : folders.error ? (
        <ErrorNotice error={folders.error} onRetry={() => void folders.refetch()} />
      ) : (
        <>
          {shown.length === 0 ? (
            <Text size="sm" c="dimmed">
              No folders attached. Attach one and the agent can open, grep and search its files.
            </Text>
          ) : (
            shown.map((folder) => <FolderCard key={folder.id} agentId={agentId} folder={folder} />)
          )}
          <CursorPager
            pages={pages}
            pageSize={FOLDER_PAGE_SIZE}
            shown={shown.length}
            nextCursor={(folders.data?.length ?? 0) > FOLDER_PAGE_SIZE ? (shown.at(-1)?.id ?? null) : null}
            settled={folders.isSuccess && !folders.isPlaceholderData}
          />
        </>
      )}
      <Divider my={4} />
      <AgentFiles agentId={agentId} />
    </Stack>
  );
}
