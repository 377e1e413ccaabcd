import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Anchor,
  Badge,
  Button,
  Card,
  ErrorNotice,
  Group,
  Loader,
  PageHeader,
  SegmentedControl,
  SimpleGrid,
  sharingApi,
  Stack,
  Text,
  TextInput,
  Tooltip,
  useDebouncedValue,
  type AgentFileListItem,
} from '@engram/console-kit';
import { IconDownload, IconSearch, IconThumbDown, IconThumbUp } from '@tabler/icons-react';

/** Files per page of the list (spec 000 §9). */
const PAGE = 25;

function AgentFileCard({ file }: { file: AgentFileListItem }) {
  const queryClient = useQueryClient();
  const vote = useMutation({
    mutationFn: (direction: 'up' | 'down') => sharingApi.voteAgentFile(file.id, direction),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['agent-files'] }),
  });
  return (
    <Card withBorder radius="lg" data-testid="agent-file-card">
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap">
          <Text fw={600} truncate>
            {file.name}
          </Text>
          <Badge variant="light" tt="none">
            {file.accessLevel}
          </Badge>
        </Group>
        <Text size="sm">{file.summary}</Text>
        <Text size="xs" c="dimmed">
          by {file.author} · {file.downloadCount} downloads
        </Text>
        <Group justify="space-between">
          <Group gap={4}>
            <Tooltip label="Vote up">
              <ActionIcon variant={file.myVote === 'up' ? 'filled' : 'subtle'} aria-label={`Vote ${file.name} up`} onClick={() => vote.mutate('up')}>
                <IconThumbUp size={16} />
              </ActionIcon>
            </Tooltip>
            <Text size="sm">{file.upvotes}</Text>
            <Tooltip label="Vote down">
              <ActionIcon variant={file.myVote === 'down' ? 'filled' : 'subtle'} aria-label={`Vote ${file.name} down`} onClick={() => vote.mutate('down')}>
                <IconThumbDown size={16} />
              </ActionIcon>
            </Tooltip>
            <Text size="sm">{file.downvotes}</Text>
          </Group>
          <Button
            component="a"
            href={sharingApi.agentFileDownloadUrl(file.id)}
            download={`${file.name}.af`}
            size="xs"
            variant="light"
            leftSection={<IconDownload size={14} />}
          >
            Download
          </Button>
        </Group>
        {vote.error ? <ErrorNotice error={vote.error} title="The vote was not counted" /> : null}
      </Stack>
    </Card>
  );
}

/**
 * The agent file gallery: files published by this organization and, by their access level, by others, 25 a
 * page, searched by name or summary, sorted by downloads or votes. A download imports with "Import agent file".
 */
export function AgentFilesPage() {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, 250);
  const [sortBy, setSortBy] = useState<'downloads' | 'votes'>('downloads');
  const [offset, setOffset] = useState(0);
  const files = useQuery({
    queryKey: ['agent-files', debounced, sortBy, offset],
    queryFn: () => sharingApi.agentFiles({ search: debounced || undefined, sortBy, offset }),
    placeholderData: keepPreviousData,
  });
  return (
    <Stack>
      <PageHeader title="Agent files" description="Agents published as agent files: download one and import it to get the agent." />
      <Group>
        <TextInput
          leftSection={<IconSearch size={14} />}
          placeholder="Search by name or summary"
          aria-label="Search agent files"
          value={search}
          onChange={(event) => {
            setSearch(event.currentTarget.value);
            setOffset(0);
          }}
        />
        <SegmentedControl
          value={sortBy}
          onChange={(value) => setSortBy(value as 'downloads' | 'votes')}
          data={[
            { value: 'downloads', label: 'Most downloaded' },
            { value: 'votes', label: 'Top voted' },
          ]}
        />
      </Group>
      {files.isPending ? <Loader /> : null}
      {files.error ? <ErrorNotice error={files.error} title="The agent files could not be loaded" onRetry={() => void files.refetch()} /> : null}
      {files.data?.agentFiles.length === 0 ? <Text c="dimmed">No agent files yet. Publish one from an agent's Share button.</Text> : null}
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        {files.data?.agentFiles.map((file) => (
          <AgentFileCard key={file.id} file={file} />
        ))}
      </SimpleGrid>
      <Group>
        {offset > 0 ? (
          <Anchor component="button" onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            Previous page
          </Anchor>
        ) : null}
        {files.data?.hasNextPage ? (
          <Anchor component="button" onClick={() => setOffset(offset + PAGE)}>
            Next page
          </Anchor>
        ) : null}
      </Group>
    </Stack>
  );
}
