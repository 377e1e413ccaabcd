import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Anchor, Badge, Box, Code, Flex, Group, Link, Paper, ScrollArea, SimpleGrid, Stack, Table, Text, UnstyledButton, useFormatters, useMantineTheme, useParams, useProject } from '@engram/console-kit';
import { Switch } from '@engram/console-kit/widgets';
import { observabilityApi, observabilityKeys, type TraceSpan } from './observability-api.js';
import { useProjectAgents } from './filters.js';
import { formatMs, Loaded, Section, SectionLink } from './shared.js';
import { categoryOf, waterfallRows, type SpanCategory, type WaterfallRow } from './waterfall.js';

const CATEGORY_COLORS: Record<SpanCategory, string> = { run: 'blue', step: 'grape', model: 'teal', tool: 'orange', other: 'gray' };
const CATEGORY_LABELS: Record<SpanCategory, string> = { run: 'agent run', step: 'step', model: 'model call', tool: 'tool call', other: 'platform' };


/** Spans as bars along the trace's time: each placed by its start and sized by its duration, nested under its parent. */
function Waterfall({ rows, selected, onSelect }: { rows: Array<WaterfallRow<TraceSpan>>; selected: string | null; onSelect: (spanId: string) => void }) {
  const theme = useMantineTheme();
  const totalMs = Math.max(...rows.map((row) => row.offsetMs + row.span.duration_ms), 0.001);
  return (
    <ScrollArea>
      <Stack gap={2} miw={520} data-testid="waterfall" role="list" aria-label="Spans">
        {rows.map(({ span, depth, offsetMs }) => {
          const category = categoryOf(span);
          const color = theme.colors[CATEGORY_COLORS[category]]?.[span.status_code === 'error' ? 8 : 5] ?? theme.colors.blue[5];
          const left = (offsetMs / totalMs) * 100;
          const width = Math.max((span.duration_ms / totalMs) * 100, 0.4);
          return (
            <UnstyledButton
              key={span.span_id}
              role="listitem"
              data-testid="waterfall-span"
              data-span-name={span.name}
              data-category={category}
              data-depth={depth}
              aria-current={selected === span.span_id}
              onClick={() => onSelect(span.span_id)}
              style={{
                display: 'grid',
                gridTemplateColumns: 'minmax(180px, 36%) 1fr 64px',
                alignItems: 'center',
                gap: 8,
                padding: '2px 4px',
                borderRadius: 4,
                background: selected === span.span_id ? theme.colors.blue[0] : undefined,
              }}
            >
              <Text size="xs" truncate style={{ paddingLeft: depth * 14 }} c={span.status_code === 'error' ? 'red' : undefined} title={span.name}>
                {span.name}
              </Text>
              <Box pos="relative" h={14}>
                <Box pos="absolute" top={0} h={14} style={{ left: `${left}%`, width: `${width}%`, background: color, borderRadius: 3 }} title={`${CATEGORY_LABELS[category]}: ${formatMs(span.duration_ms)}`} />
              </Box>
              <Text size="xs" c="dimmed" ta="right">
                {formatMs(span.duration_ms)}
              </Text>
            </UnstyledButton>
          );
        })}
      </Stack>
    </ScrollArea>
  );
}

/** Attributes the GenAI conventions use for recorded content (only with ENGRAM_TRACE_CONTENT on). */
const CONTENT = [
  { key: 'gen_ai.input.messages', title: 'Model request' },
  { key: 'gen_ai.output.messages', title: 'Model response' },
  { key: 'gen_ai.tool.call.arguments', title: 'Tool input' },
  { key: 'gen_ai.tool.call.result', title: 'Tool output' },
] as const;

/** A recorded value as text: JSON pretty-printed when it is JSON. */
function readable(value: unknown): string {
  if (typeof value !== 'string') return JSON.stringify(value, null, 2);
  try {
    return JSON.stringify(JSON.parse(value), null, 2);
  } catch {
    return value;
  }
}

function SpanDetail({ span }: { span: TraceSpan }) {
  const format = useFormatters();
  const category = categoryOf(span);
  const contentKeys = new Set<string>(CONTENT.map((content) => content.key));
  const content = CONTENT.filter((item) => span.attributes[item.key] !== undefined);
  const attributes = Object.entries(span.attributes).filter(([key]) => !contentKeys.has(key));
  return (
    <Stack gap="sm" data-testid="span-detail">
      <Group gap="xs">
        <Text fw={600} data-testid="span-detail-name">
          {span.name}
        </Text>
        <Badge color={CATEGORY_COLORS[category]} variant="light">
          {CATEGORY_LABELS[category]}
        </Badge>
        <Badge color={span.status_code === 'error' ? 'red' : 'gray'} variant="outline">
          {span.status_code}
        </Badge>
      </Group>
      <Text size="xs" c="dimmed">
        {span.service_name} · {span.kind} · started {format.dateTime(span.start_time)} · {formatMs(span.duration_ms)}
      </Text>
      {span.status_message ? (
        <Code block c="red">
          {span.status_message}
        </Code>
      ) : null}
      {content.map((item) => (
        <Stack gap={4} key={item.key} data-testid="span-content" data-content={item.key}>
          <Text size="sm" fw={500}>
            {item.title}
          </Text>
          <Code block fz="xs" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', maxHeight: 320, overflow: 'auto' }}>
            {readable(span.attributes[item.key])}
          </Code>
        </Stack>
      ))}
      {content.length === 0 && (category === 'model' || category === 'tool') ? (
        <Text size="xs" c="dimmed">
          The {category === 'model' ? 'request and response' : 'input and output'} were not recorded: the platform records them when started with
          ENGRAM_TRACE_CONTENT=true.
        </Text>
      ) : null}
      <Table data-testid="span-attributes" fz="xs">
        <Table.Tbody>
          {attributes.map(([key, value]) => (
            <Table.Tr key={key}>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                <Text size="xs" ff="monospace">
                  {key}
                </Text>
              </Table.Td>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>{typeof value === 'string' ? value : JSON.stringify(value)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {span.events.length > 0 ? (
        <Stack gap={4} data-testid="span-events">
          <Text size="sm" fw={500}>
            Events
          </Text>
          {span.events.map((event, index) => (
            <Paper key={`${event.name}-${index}`} withBorder p="xs" radius="sm">
              <Text size="xs" fw={500}>
                {event.name}
              </Text>
              {Object.keys(event.attributes).length > 0 ? (
                <Code block fz="xs" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                  {readable(event.attributes)}
                </Code>
              ) : null}
            </Paper>
          ))}
        </Stack>
      ) : null}
    </Stack>
  );
}

/** One trace: its summary, the waterfall of its spans, and the chosen span's attributes and events. */
export function TraceView() {
  const { traceId = '' } = useParams();
  const project = useProject();
  // The agent's workspace, and its Runs panel open at this run: the agents remote's screens, in the same project.
  const agentPath = (agentId: string) => `/projects/${project.slug}/agents/${agentId}`;
  const format = useFormatters();
  const agents = useProjectAgents();
  const trace = useQuery({ queryKey: observabilityKeys.trace(traceId), queryFn: () => observabilityApi.trace(traceId) });
  const [selected, setSelected] = useState<string | null>(null);
  // The agent's own spans (run, steps, model and tool calls) tell its story; the request and Temporal's spans on demand.
  const [platformSpans, setPlatformSpans] = useState(false);
  return (
    <Stack gap="lg">
      <Group>
        <SectionLink to="traces">← All traces</SectionLink>
      </Group>
      <Loaded query={trace} errorTitle="This trace could not be loaded" height={320}>
        {(data) => {
          const rows = waterfallRows(data.spans, (span) => platformSpans || categoryOf(span) !== 'other');
          const chosen = data.spans.find((span) => span.span_id === selected) ?? null;
          const summary = data.trace;
          return (
            <Stack gap="lg">
              <Section title={`Trace ${summary.trace_id}`} testId="trace-summary">
                <SimpleGrid cols={{ base: 2, md: 5 }} spacing="sm">
                  <Stack gap={0}>
                    <Text size="xs" c="dimmed">
                      Agent
                    </Text>
                    {summary.agent_id ? (
                      <Anchor component={Link} to={agentPath(summary.agent_id)} size="sm" data-testid="trace-agent-link">
                        {agents.data?.get(summary.agent_id) ?? summary.agent_id}
                      </Anchor>
                    ) : (
                      <Text size="sm">—</Text>
                    )}
                  </Stack>
                  <Stack gap={0}>
                    <Text size="xs" c="dimmed">
                      Started
                    </Text>
                    <Text size="sm">{format.dateTime(summary.started_at)}</Text>
                  </Stack>
                  <Stack gap={0}>
                    <Text size="xs" c="dimmed">
                      Duration
                    </Text>
                    <Text size="sm">{formatMs(summary.duration_ms)}</Text>
                  </Stack>
                  <Stack gap={0}>
                    <Text size="xs" c="dimmed">
                      Steps
                    </Text>
                    <Text size="sm" data-testid="trace-agent-steps">
                      {summary.agent_steps}
                    </Text>
                  </Stack>
                  <Stack gap={0}>
                    <Text size="xs" c="dimmed">
                      Run
                    </Text>
                    {summary.run_id && summary.agent_id ? (
                      <Anchor component={Link} to={`${agentPath(summary.agent_id)}?panel=runs&run=${summary.run_id}`} size="sm" ff="monospace" data-testid="trace-run-id">
                        {summary.run_id}
                      </Anchor>
                    ) : (
                      <Text size="sm" ff="monospace" data-testid="trace-run-id">
                        {summary.run_id ?? '—'}
                      </Text>
                    )}
                  </Stack>
                </SimpleGrid>
              </Section>
              <Flex gap="lg" direction={{ base: 'column', lg: 'row' }} align={{ base: 'stretch', lg: 'flex-start' }}>
                <Box style={{ flex: 3, minWidth: 0 }}>
                  <Section
                    title="Spans"
                    testId="spans-section"
                    actions={
                      <Switch
                        size="xs"
                        label="HTTP and Temporal spans"
                        checked={platformSpans}
                        onChange={(event) => setPlatformSpans(event.currentTarget.checked)}
                      />
                    }
                  >
                    {rows.length === 0 ? (
                      <Text size="sm" c="dimmed">
                        {data.spans.length === 0
                          ? 'This trace has no spans stored (they may have passed the retention period).'
                          : 'This trace has no spans of an agent run: show the HTTP and Temporal spans to see it.'}
                      </Text>
                    ) : (
                      <Waterfall rows={rows} selected={selected} onSelect={setSelected} />
                    )}
                  </Section>
                </Box>
                <Box style={{ flex: 2, minWidth: 0 }}>
                  <Section title="Span" testId="span-section">
                    {chosen ? (
                      <SpanDetail span={chosen} />
                    ) : (
                      <Text size="sm" c="dimmed">
                        Choose a span to see its attributes and events: a model call shows its request and response, a tool call its input and output.
                      </Text>
                    )}
                  </Section>
                </Box>
              </Flex>
            </Stack>
          );
        }}
      </Loaded>
    </Stack>
  );
}
