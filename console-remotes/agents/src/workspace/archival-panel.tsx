import { useEffect, useState, type FormEvent } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Badge,
  Box,
  Button,
  Card,
  ErrorNotice,
  Group,
  Pager,
  SegmentedControl,
  Skeleton,
  Stack,
  Text,
  TextInput,
  Tooltip,
  useFormatters,
  useV1,
} from '@engram/console-kit';
import { TagsInput, Textarea } from '@engram/console-kit/widgets';
import { IconPlus, IconSearch, IconTrash, IconX } from '@tabler/icons-react';
import { searchArchivalMemory, type ArchivalSearch } from '../ade-api.js';
import { agentKeys, useMemberPermissions } from '../queries.js';

/** Storing and deleting a passage are agent writes the API grants only with every agent permission. */
const ARCHIVAL_WRITE = ['create_agents', 'update_agents', 'delete_agents'];

const PAGE_SIZE = 20;
/** Search answers the best matches only; this many is more than a panel shows without scrolling. */
const SEARCH_RESULTS = 50;

type PassageView = { id: string; text: string; at: string; tags: string[] };

function useRefreshPassages(agentId: string) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: agentKeys.passages(v1, agentId) }),
      // The context window counts archival passages.
      queryClient.invalidateQueries({ queryKey: agentKeys.context(v1, agentId) }),
    ]);
}

function PassageCard({ agentId, passage }: { agentId: string; passage: PassageView }) {
  const v1 = useV1();
  const format = useFormatters();
  const refresh = useRefreshPassages(agentId);
  const remove = useMutation({ mutationFn: () => v1.deletePassage(agentId, passage.id), onSuccess: refresh });
  const { can } = useMemberPermissions();
  return (
    <Card withBorder radius="md" p="xs" data-testid="archival-passage">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Stack gap={4} style={{ minWidth: 0 }}>
          <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }} data-testid="passage-text">
            {passage.text}
          </Text>
          <Group gap={4}>
            <Text size="xs" c="dimmed" title={format.dateTime(passage.at)}>
              {format.relative(passage.at)}
            </Text>
            {passage.tags.map((tag) => (
              <Badge key={tag} size="xs" variant="outline" tt="none">
                {tag}
              </Badge>
            ))}
          </Group>
          {remove.error ? <ErrorNotice error={remove.error} title="Not deleted" /> : null}
        </Stack>
        {can(...ARCHIVAL_WRITE) ? (
          <Tooltip label="Delete passage">
            <ActionIcon size="sm" variant="subtle" color="red" loading={remove.isPending} onClick={() => remove.mutate()} aria-label="Delete passage">
              <IconTrash size={14} />
            </ActionIcon>
          </Tooltip>
        ) : null}
      </Group>
    </Card>
  );
}

function PassageList({ agentId, passages, empty }: { agentId: string; passages: PassageView[]; empty: string }) {
  if (passages.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        {empty}
      </Text>
    );
  }
  return passages.map((passage) => <PassageCard key={passage.id} agentId={agentId} passage={passage} />);
}

function AddPassage({ agentId, onStored }: { agentId: string; onStored: () => void }) {
  const v1 = useV1();
  const refresh = useRefreshPassages(agentId);
  const [text, setText] = useState('');
  const [tags, setTags] = useState<string[]>([]);
  const insert = useMutation({
    mutationFn: () => v1.insertPassage(agentId, { text: text.trim(), ...(tags.length ? { tags } : {}) }),
    onSuccess: async () => {
      setText('');
      setTags([]);
      onStored();
      await refresh();
    },
  });
  return (
    <Card withBorder radius="md" p="xs">
      <Stack gap="xs">
        <Textarea
          size="xs"
          label="New passage"
          placeholder="Something the agent should be able to look up later"
          autosize
          minRows={2}
          maxRows={8}
          value={text}
          onChange={(event) => setText(event.currentTarget.value)}
        />
        <TagsInput size="xs" label="Tags" placeholder="Type a tag and press Enter" value={tags} onChange={setTags} />
        {insert.error ? <ErrorNotice error={insert.error} title="Not stored" /> : null}
        <Group justify="flex-end">
          <Button size="xs" disabled={!text.trim()} loading={insert.isPending} onClick={() => insert.mutate()}>
            Store passage
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

/** Newest first, a page at a time; `cursors` holds the `after` of each page opened so far. */
function PassagePages({ agentId, cursors, onCursors }: { agentId: string; cursors: Array<string | null>; onCursors: (cursors: Array<string | null>) => void }) {
  const v1 = useV1();
  const after = cursors.at(-1) ?? null;
  const page = useQuery({
    queryKey: agentKeys.passagePage(v1, agentId, after),
    // One more than a page tells whether there is a next one.
    queryFn: () => v1.listPassages(agentId, { ...(after ? { after } : {}), limit: PAGE_SIZE + 1, ascending: false }),
    placeholderData: keepPreviousData,
  });
  const passages = (page.data ?? []).slice(0, PAGE_SIZE);
  const pageEmptied = page.isSuccess && !page.isPlaceholderData && passages.length === 0 && cursors.length > 1;
  // Deleting the last passages of a later page leaves nothing to show there: go back one.
  useEffect(() => {
    if (pageEmptied) onCursors(cursors.slice(0, -1));
  }, [pageEmptied, cursors, onCursors]);

  if (page.isPending) return <Skeleton h={80} />;
  if (page.error) return <ErrorNotice error={page.error} onRetry={() => void page.refetch()} />;
  const index = cursors.length - 1;
  return (
    <>
      <PassageList
        agentId={agentId}
        passages={passages.map((passage) => ({ id: passage.id, text: passage.text, at: passage.created_at, tags: passage.tags ?? [] }))}
        empty="Archival memory is empty."
      />
      <Pager
        offset={index * PAGE_SIZE}
        limit={PAGE_SIZE}
        hasNextPage={(page.data?.length ?? 0) > PAGE_SIZE}
        onChange={(offset) => onCursors(offset > index * PAGE_SIZE ? [...cursors, passages.at(-1)?.id ?? null] : cursors.slice(0, -1))}
      />
    </>
  );
}

function SearchResults({ agentId, search }: { agentId: string; search: ArchivalSearch }) {
  const v1 = useV1();
  const results = useQuery({
    queryKey: agentKeys.passageSearch(v1, agentId, search),
    queryFn: () => searchArchivalMemory(agentId, search, SEARCH_RESULTS),
    placeholderData: keepPreviousData,
  });
  if (results.isPending) return <Skeleton h={80} />;
  if (results.error) return <ErrorNotice error={results.error} title="The search failed" onRetry={() => void results.refetch()} />;
  return (
    <>
      <Text size="xs" c="dimmed" data-testid="archival-search-count">
        {results.data.count === 1 ? '1 match' : `${results.data.count} matches`}, best first
      </Text>
      <PassageList
        agentId={agentId}
        passages={results.data.results.map((result) => ({ id: result.id, text: result.content, at: result.timestamp, tags: result.tags ?? [] }))}
        empty="Nothing matches."
      />
    </>
  );
}

function SearchForm({ active, onSearch }: { active: boolean; onSearch: (search: ArchivalSearch | null) => void }) {
  const [query, setQuery] = useState('');
  const [tags, setTags] = useState<string[]>([]);
  const [tagMatchMode, setTagMatchMode] = useState<ArchivalSearch['tagMatchMode']>('any');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (query.trim()) onSearch({ query: query.trim(), tags, tagMatchMode });
  };
  const clear = () => {
    setQuery('');
    setTags([]);
    onSearch(null);
  };
  return (
    <Box component="form" onSubmit={submit} role="search">
      <Stack gap={6}>
        <Group gap="xs" wrap="nowrap">
          <TextInput
            style={{ flex: 1 }}
            size="xs"
            placeholder="Search by meaning or words"
            leftSection={<IconSearch size={14} />}
            value={query}
            onChange={(event) => setQuery(event.currentTarget.value)}
            aria-label="Search archival memory"
          />
          <Button type="submit" size="xs" disabled={!query.trim()}>
            Search
          </Button>
          {active ? (
            <Tooltip label="Back to all passages">
              <ActionIcon size={30} variant="default" onClick={clear} aria-label="Clear the search">
                <IconX size={14} />
              </ActionIcon>
            </Tooltip>
          ) : null}
        </Group>
        <Group gap="xs" wrap="nowrap" align="center">
          <TagsInput style={{ flex: 1 }} size="xs" placeholder="Only passages tagged… (Enter after each)" value={tags} onChange={setTags} aria-label="Search only these tags" />
          {tags.length > 1 ? (
            <SegmentedControl
              size="xs"
              value={tagMatchMode}
              onChange={(value) => setTagMatchMode(value as ArchivalSearch['tagMatchMode'])}
              data={[
                { value: 'any', label: 'Any tag' },
                { value: 'all', label: 'All tags' },
              ]}
              aria-label="Match"
            />
          ) : null}
        </Group>
      </Stack>
    </Box>
  );
}

/** Archival memory: the passages the agent stored for later, a page at a time, searchable by meaning, words and tags. */
export function ArchivalPanel({ agentId }: { agentId: string }) {
  const [search, setSearch] = useState<ArchivalSearch | null>(null);
  const [adding, setAdding] = useState(false);
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const { can } = useMemberPermissions();
  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Text size="sm" fw={600}>
          {search ? `Passages matching “${search.query}”` : 'Passages, newest first'}
        </Text>
        {can(...ARCHIVAL_WRITE) ? (
          <Button size="xs" variant={adding ? 'default' : 'light'} leftSection={adding ? <IconX size={14} /> : <IconPlus size={14} />} onClick={() => setAdding((open) => !open)}>
            {adding ? 'Close' : 'Add'}
          </Button>
        ) : null}
      </Group>
      {adding ? (
        <AddPassage
          agentId={agentId}
          onStored={() => {
            setAdding(false);
            // The new passage is the newest: show the first page.
            setCursors([null]);
          }}
        />
      ) : null}
      <SearchForm active={search !== null} onSearch={setSearch} />
      {search ? <SearchResults agentId={agentId} search={search} /> : <PassagePages agentId={agentId} cursors={cursors} onCursors={setCursors} />}
    </Stack>
  );
}
