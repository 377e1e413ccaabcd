import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Button,
  Card,
  ErrorNotice,
  Group,
  Skeleton,
  Stack,
  Text,
  TextInput,
  Tooltip,
  useDebouncedValue,
  useFormatters,
  useV1,
} from '@engram/console-kit';
import { Textarea } from '@engram/console-kit/widgets';
import { IconPlus, IconSearch, IconTrash } from '@tabler/icons-react';
import { agentKeys } from '../queries.js';

/** Archival memory: the passages the agent stored for later, searchable by words. */
export function ArchivalPanel({ agentId }: { agentId: string }) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const format = useFormatters();
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const [draft, setDraft] = useState('');
  const [adding, setAdding] = useState(false);
  const passages = useQuery({
    queryKey: agentKeys.passages(v1, agentId, debounced),
    queryFn: () => v1.listPassages(agentId, { search: debounced || undefined, limit: 50, ascending: false }),
    placeholderData: keepPreviousData,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: [...agentKeys.live(v1, agentId), 'passages'] });
  const insert = useMutation({
    mutationFn: () => v1.insertPassage(agentId, { text: draft.trim() }),
    onSuccess: async () => {
      setDraft('');
      setAdding(false);
      await refresh();
    },
  });
  const remove = useMutation({ mutationFn: (passageId: string) => v1.deletePassage(agentId, passageId), onSuccess: refresh });
  return (
    <Stack gap="sm">
      <Group gap="xs" wrap="nowrap">
        <TextInput
          style={{ flex: 1 }}
          size="xs"
          placeholder="Search archival memory"
          leftSection={<IconSearch size={14} />}
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          aria-label="Search archival memory"
        />
        <Button size="xs" variant="light" leftSection={<IconPlus size={14} />} onClick={() => setAdding((value) => !value)}>
          Add
        </Button>
      </Group>
      {adding ? (
        <Stack gap="xs">
          <Textarea placeholder="Something the agent should be able to look up later" autosize minRows={2} value={draft} onChange={(event) => setDraft(event.currentTarget.value)} />
          {insert.error ? <ErrorNotice error={insert.error} title="Not stored" /> : null}
          <Group justify="flex-end">
            <Button size="xs" disabled={!draft.trim()} loading={insert.isPending} onClick={() => insert.mutate()}>
              Store passage
            </Button>
          </Group>
        </Stack>
      ) : null}
      {passages.isPending ? (
        <Skeleton h={80} />
      ) : passages.error ? (
        <ErrorNotice error={passages.error} onRetry={() => void passages.refetch()} />
      ) : passages.data.length === 0 ? (
        <Text size="sm" c="dimmed">
          {debounced ? 'Nothing matches.' : 'Archival memory is empty.'}
        </Text>
      ) : (
        passages.data.map((passage) => (
          <Card key={passage.id} withBorder radius="md" p="xs">
            <Group justify="space-between" align="flex-start" wrap="nowrap">
              <Stack gap={2} style={{ minWidth: 0 }}>
                <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                  {passage.text}
                </Text>
                <Text size="xs" c="dimmed">
                  {format.relative(passage.created_at)}
                </Text>
              </Stack>
              <Tooltip label="Delete passage">
                <ActionIcon size="sm" variant="subtle" color="red" onClick={() => remove.mutate(passage.id)} aria-label="Delete passage">
                  <IconTrash size={14} />
                </ActionIcon>
              </Tooltip>
            </Group>
          </Card>
        ))
      )}
    </Stack>
  );
}
