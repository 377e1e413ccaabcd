import { Box, ErrorNotice, Group, Skeleton, Stack, Table, Text, Tooltip, useFormatters, type ContextWindow } from '@engram/console-kit';
import { Progress } from '@engram/console-kit/widgets';
import { useContextWindow } from '../queries.js';
import { plural } from '../plural.js';

const SECTIONS: Array<{ key: keyof ContextWindow; label: string; color: string; hint: string }> = [
  { key: 'num_tokens_system', label: 'System prompt', color: 'engram', hint: 'The instructions the agent always sees' },
  { key: 'num_tokens_core_memory', label: 'Core memory', color: 'teal', hint: 'The memory blocks' },
  { key: 'num_tokens_external_memory_summary', label: 'Memory metadata', color: 'cyan', hint: 'What is in recall and archival memory' },
  { key: 'num_tokens_summary_memory', label: 'Summary', color: 'grape', hint: 'Summaries of compacted history' },
  { key: 'num_tokens_functions_definitions', label: 'Tool definitions', color: 'orange', hint: 'Schemas of the attached tools' },
  { key: 'num_tokens_messages', label: 'Messages', color: 'blue', hint: 'The conversation in context' },
];

/** What fills the context window, by section (GET /v1/agents/{id}/context), as one stacked bar. */
export function ContextPanel({ agentId }: { agentId: string }) {
  const context = useContextWindow(agentId);
  const format = useFormatters();
  if (context.isPending) return <Skeleton h={160} />;
  if (context.error) return <ErrorNotice error={context.error} onRetry={() => void context.refetch()} />;
  const data = context.data;
  const max = Math.max(1, data.context_window_size_max);
  const used = data.context_window_size_current;
  const percent = (tokens: number) => (tokens / max) * 100;
  return (
    <Stack gap="md" data-testid="context-window">
      <Group justify="space-between" align="baseline">
        <Text size="sm" fw={600}>
          {format.number(used)} of {format.number(max)} tokens
        </Text>
        <Text size="xs" c="dimmed">
          {((used / max) * 100).toFixed(1)}% used
        </Text>
      </Group>
      <Progress.Root size={22} radius="md" aria-label="Context window usage by section">
        {SECTIONS.map((section) => {
          const tokens = Number(data[section.key] ?? 0);
          if (tokens <= 0) return null;
          return (
            <Tooltip key={section.key} label={`${section.label}: ${format.number(tokens)} tokens`}>
              <Progress.Section value={Math.max(percent(tokens), 0.6)} color={section.color} />
            </Tooltip>
          );
        })}
      </Progress.Root>
      <Table verticalSpacing={6} fz="sm">
        <Table.Tbody>
          {SECTIONS.map((section) => {
            const tokens = Number(data[section.key] ?? 0);
            return (
              <Table.Tr key={section.key}>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    <Box w={10} h={10} style={{ borderRadius: 3, background: `var(--mantine-color-${section.color}-filled)`, flexShrink: 0 }} />
                    <Tooltip label={section.hint}>
                      <Text size="sm">{section.label}</Text>
                    </Tooltip>
                  </Group>
                </Table.Td>
                <Table.Td ta="right" ff="monospace" fz="xs">
                  {format.number(tokens)}
                </Table.Td>
                <Table.Td ta="right" c="dimmed" fz="xs" w={60}>
                  {used > 0 ? `${((tokens / used) * 100).toFixed(0)}%` : '—'}
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
      <Group gap="lg">
        <Text size="xs" c="dimmed">
          {plural(data.num_messages, 'message', 'messages', format.number)} in context
        </Text>
        <Text size="xs" c="dimmed">
          {format.number(data.num_recall_memory)} in recall memory
        </Text>
        <Text size="xs" c="dimmed">
          {format.number(data.num_archival_memory)} archival passages
        </Text>
      </Group>
    </Stack>
  );
}
