import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Box, Button, Code, ErrorNotice, Group, Skeleton, Stack, Text, useV1 } from '@engram/console-kit';
import { Switch } from '@engram/console-kit/widgets';
import { IconFoldDown } from '@tabler/icons-react';
import { closeAgentFile, closeAllAgentFiles, listAgentFiles, openAgentFile, type AgentFile } from '../ade-api.js';
import { agentKeys, useMemberPermissions } from '../queries.js';
import { CursorPager, useCursorPages } from './cursor-pager.js';

const PAGE_SIZE = 20;

function useRefreshAgentFiles(agentId: string) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: agentKeys.files(v1, agentId) }),
      // Open files are part of the agent's prompt.
      queryClient.invalidateQueries({ queryKey: agentKeys.context(v1, agentId) }),
    ]);
}

function AgentFileRow({ agentId, file }: { agentId: string; file: AgentFile }) {
  const refresh = useRefreshAgentFiles(agentId);
  const { can } = useMemberPermissions();
  const toggle = useMutation({
    mutationFn: async (open: boolean): Promise<string[]> => {
      if (open) return openAgentFile(agentId, file.file_id);
      await closeAgentFile(agentId, file.file_id);
      return [];
    },
    onSuccess: refresh,
  });
  // Set in the change handler itself: the mutation's own state reaches React a tick later, and until then the
  // controlled switch would snap back to the old value.
  const [requested, setRequested] = useState<boolean | null>(null);
  const open = requested ?? file.is_open;
  // The agent keeps only so many files open: opening one may close the least recently used.
  const evicted = toggle.isSuccess && toggle.variables ? toggle.data : [];
  return (
    <Box py={6} style={{ borderTop: '1px solid var(--mantine-color-default-border)' }} data-testid={`agent-file-${file.file_name}`} data-open={file.is_open}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap" gap="xs">
          {/* The name the agent's file tools take: the file under its folder's name. */}
          <Text size="sm" ff="monospace" truncate title={file.file_name} style={{ minWidth: 0 }}>
            {file.file_name}
          </Text>
          <Switch
            size="xs"
            label="Open"
            labelPosition="left"
            checked={open}
            disabled={toggle.isPending || !can('update_agents')}
            onChange={(event) => {
              const wanted = event.currentTarget.checked;
              setRequested(wanted);
              toggle.mutate(wanted, { onSettled: () => setRequested(null) });
            }}
            aria-label={`${file.file_name} open`}
          />
        </Group>
        {file.is_open && file.visible_content !== null ? (
          <Box mah={220} style={{ overflow: 'auto', borderRadius: 'var(--mantine-radius-sm)' }}>
            <Code block fz="xs" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }} data-testid="file-preview">
              {file.visible_content}
            </Code>
          </Box>
        ) : null}
        {evicted.length > 0 ? (
          <Text size="xs" c="dimmed">
            Opening it closed {evicted.join(', ')}: the agent keeps only so many files open.
          </Text>
        ) : null}
        {toggle.error ? <ErrorNotice error={toggle.error} title={toggle.variables ? 'Not opened' : 'Not closed'} /> : null}
      </Stack>
    </Box>
  );
}

/** What the agent sees of its folders' files: which are open in its context (and what of them it sees), newest first. */
export function AgentFiles({ agentId }: { agentId: string }) {
  const v1 = useV1();
  const refresh = useRefreshAgentFiles(agentId);
  const pages = useCursorPages();
  const page = useQuery({
    queryKey: agentKeys.filePage(v1, agentId, pages.after),
    queryFn: () => listAgentFiles(agentId, { after: pages.after, limit: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  const closeAll = useMutation({ mutationFn: () => closeAllAgentFiles(agentId), onSuccess: refresh });
  const { can } = useMemberPermissions();
  if (page.isPending) return <Skeleton h={60} />;
  if (page.error) return <ErrorNotice error={page.error} onRetry={() => void page.refetch()} />;
  const { files } = page.data;
  const openHere = files.filter((file) => file.is_open).length;
  return (
    <Stack gap={6} data-testid="agent-files">
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <Stack gap={0} style={{ minWidth: 0 }}>
          <Text size="sm" fw={600}>
            The agent’s files
          </Text>
          <Text size="xs" c="dimmed">
            Open files are in its context; it can open, close and search them itself.
          </Text>
        </Stack>
        <Button
          size="compact-xs"
          variant="default"
          leftSection={<IconFoldDown size={14} />}
          style={{ flexShrink: 0 }}
          // An open file may sit on another page.
          disabled={(openHere === 0 && !page.data.has_more && pages.index === 0) || !can('update_agents')}
          loading={closeAll.isPending}
          onClick={() => closeAll.mutate()}
        >
          Close all
        </Button>
      </Group>
      {closeAll.error ? <ErrorNotice error={closeAll.error} title="Not closed" /> : null}
      {files.length === 0 ? (
        <Text size="xs" c="dimmed">
          No files yet: attach a folder and upload into it.
        </Text>
      ) : (
        <Box>
          {files.map((file) => (
            <AgentFileRow key={file.id} agentId={agentId} file={file} />
          ))}
        </Box>
      )}
      <CursorPager pages={pages} pageSize={PAGE_SIZE} shown={files.length} nextCursor={page.data.has_more ? page.data.next_cursor : null} settled={page.isSuccess && !page.isPlaceholderData} />
    </Stack>
  );
}
