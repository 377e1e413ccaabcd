import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Badge,
  Button,
  Card,
  ErrorNotice,
  Group,
  Skeleton,
  Stack,
  Text,
  Tooltip,
  useFormatters,
  useV1,
  type Block,
} from '@engram/console-kit';
import { NumberInput, Progress, Textarea } from '@engram/console-kit/widgets';
import { IconLock, IconPencil } from '@tabler/icons-react';
import { agentKeys, useBlocks, useMemberPermissions } from '../queries.js';

function BlockCard({ agentId, block }: { agentId: string; block: Block }) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const format = useFormatters();
  const { can } = useMemberPermissions();
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(block.value);
  const [limit, setLimit] = useState<number | string>(block.limit);
  const save = useMutation({
    mutationFn: () => v1.updateBlock(agentId, block.label, { value, limit: Number(limit) }),
    onSuccess: async () => {
      // Closed once the saved block is back, so the old value never flashes in between.
      await queryClient.invalidateQueries({ queryKey: agentKeys.live(v1, agentId) });
      setEditing(false);
    },
  });
  // While editing, the size is the draft's against the draft limit, so going over shows before saving.
  const used = editing ? value.length : block.value.length;
  const shownLimit = editing ? Number(limit) || 0 : block.limit;
  const ratio = shownLimit > 0 ? used / shownLimit : 0;
  const draftTooLong = value.length > Number(limit);
  return (
    <Card withBorder radius="md" p="sm" data-testid={`memory-block-${block.label}`}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap">
          <Group gap={6} wrap="nowrap" style={{ minWidth: 0 }}>
            <Badge variant="light" radius="sm" tt="none" ff="monospace">
              {block.label}
            </Badge>
            {block.read_only ? (
              <Tooltip label="Read-only for the agent">
                <IconLock size={14} />
              </Tooltip>
            ) : null}
          </Group>
          <Group gap={6} wrap="nowrap">
            <Text size="xs" c={ratio > 0.9 ? 'red' : 'dimmed'} ff="monospace" data-testid="block-chars">
              {format.number(used)} / {format.number(shownLimit)}
            </Text>
            {!editing && can('update_agents') ? (
              <Tooltip label="Edit block">
                <ActionIcon
                  size="sm"
                  variant="subtle"
                  aria-label={`Edit ${block.label}`}
                  onClick={() => {
                    setValue(block.value);
                    setLimit(block.limit);
                    setEditing(true);
                  }}
                >
                  <IconPencil size={14} />
                </ActionIcon>
              </Tooltip>
            ) : null}
          </Group>
        </Group>
        <Progress value={Math.min(100, ratio * 100)} size={4} color={ratio > 0.9 ? 'red' : undefined} aria-label={`${block.label} size`} />
        {block.description ? (
          <Text size="xs" c="dimmed" lineClamp={2}>
            {block.description}
          </Text>
        ) : null}
        {editing ? (
          <Stack gap="xs">
            {save.error ? <ErrorNotice error={save.error} title="The block was not saved" /> : null}
            <Textarea
              value={value}
              onChange={(event) => setValue(event.currentTarget.value)}
              autosize
              minRows={3}
              maxRows={14}
              ff="monospace"
              error={draftTooLong ? `${value.length} characters: over the limit of ${limit}` : undefined}
              aria-label={`${block.label} value`}
            />
            <Group justify="space-between" align="flex-end">
              <NumberInput label="Limit (characters)" value={limit} onChange={setLimit} min={1} step={500} w={160} size="xs" />
              <Group gap="xs">
                <Button size="xs" variant="default" onClick={() => setEditing(false)}>
                  Cancel
                </Button>
                <Button size="xs" loading={save.isPending} disabled={draftTooLong || Number(limit) < 1} onClick={() => save.mutate()}>
                  Save
                </Button>
              </Group>
            </Group>
          </Stack>
        ) : (
          <Text
            size="sm"
            ff="monospace"
            fz="xs"
            style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', maxHeight: 220, overflow: 'auto' }}
            c={block.value ? undefined : 'dimmed'}
            data-testid="block-value"
          >
            {block.value || '(empty)'}
          </Text>
        )}
      </Stack>
    </Card>
  );
}

/** Core memory: every block with its size against its limit, refreshed when the agent edits memory. */
export function MemoryPanel({ agentId }: { agentId: string }) {
  const blocks = useBlocks(agentId);
  if (blocks.isPending) return <Skeleton h={120} />;
  if (blocks.error) return <ErrorNotice error={blocks.error} onRetry={() => void blocks.refetch()} />;
  if (blocks.data.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        This agent has no memory blocks.
      </Text>
    );
  }
  return (
    <Stack gap="sm">
      {blocks.data.map((block) => (
        <BlockCard key={block.id} agentId={agentId} block={block} />
      ))}
    </Stack>
  );
}
