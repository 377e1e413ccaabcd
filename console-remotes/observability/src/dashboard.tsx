import { lazy, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Card, Group, SimpleGrid, Stack, Table, Text, useFormatters } from '@engram/console-kit';
import { rangePeriods, useFilters, useProjectAgents } from './filters.js';
import { fillPeriods } from './periods.js';
import { observabilityApi, observabilityKeys, TTFT_MESSAGES_PER_PAGE, type MetricQuery } from './observability-api.js';
import { ChartSlot, EmptyState, formatMs, formatPercent, Loaded, Section } from './shared.js';

const charts = () => import('./charts.js');
const PercentileChart = lazy(() => charts().then((module) => ({ default: module.PercentileChart })));
const ErrorsChart = lazy(() => charts().then((module) => ({ default: module.ErrorsChart })));
const StepsChart = lazy(() => charts().then((module) => ({ default: module.StepsChart })));
const ActiveAgentsChart = lazy(() => charts().then((module) => ({ default: module.ActiveAgentsChart })));
const ToolUsageChart = lazy(() => charts().then((module) => ({ default: module.ToolUsageChart })));
const CostChart = lazy(() => charts().then((module) => ({ default: module.CostChart })));

/** One metric call of the dashboard, keyed by its name and the query, keeping the last answer while a new range loads. */
function useMetric<T>(name: string, query: MetricQuery, enabled: boolean, read: (query: MetricQuery) => Promise<T>) {
  return useQuery({ queryKey: observabilityKeys.metric(name, query), queryFn: () => read(query), enabled, placeholderData: keepPreviousData });
}

function Stat({ label, value, testId, hint }: { label: string; value: string; testId: string; hint?: string }) {
  return (
    <Card withBorder radius="md" padding="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fz={24} fw={600} data-testid={testId}>
        {value}
      </Text>
      {hint ? (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      ) : null}
    </Card>
  );
}

/** The sends behind the time-to-first-token chart, slowest first, 25 to a page (spec 000 §9). */
function SlowestFirstTokens({ query }: { query: MetricQuery }) {
  const format = useFormatters();
  const agents = useProjectAgents();
  const [offset, setOffset] = useState(0);
  const messages = useQuery({
    queryKey: observabilityKeys.ttftMessages(query, offset),
    queryFn: () => observabilityApi.timeToFirstTokenMessages(query, offset),
    placeholderData: keepPreviousData,
  });
  return (
    <Loaded query={messages} errorTitle="The slowest first tokens could not be loaded" isEmpty={(data) => data.messages.length === 0 && offset === 0} empty={<EmptyState title="No answered messages in this range" />}>
      {(data) => (
        <Stack gap="xs">
          <Table striped highlightOnHover data-testid="ttft-messages">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Sent</Table.Th>
                <Table.Th>Agent</Table.Th>
                <Table.Th>Run</Table.Th>
                <Table.Th ta="right">First token</Table.Th>
                <Table.Th ta="right">Whole run</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.messages.map((message) => (
                <Table.Tr key={message.runId}>
                  <Table.Td>{format.dateTime(message.createdAt)}</Table.Td>
                  <Table.Td>{agents.data?.get(message.agentId) ?? message.agentId}</Table.Td>
                  <Table.Td>
                    <Text size="xs" ff="monospace">
                      {message.runId}
                    </Text>
                  </Table.Td>
                  <Table.Td ta="right">{formatMs(message.timeToFirstTokenMs)}</Table.Td>
                  <Table.Td ta="right">{formatMs(message.durationMs)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Group justify="flex-end" gap="xs">
            <Button size="xs" variant="default" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - TTFT_MESSAGES_PER_PAGE))}>
              Previous
            </Button>
            <Button size="xs" variant="default" disabled={!data.hasNextPage} onClick={() => setOffset(offset + TTFT_MESSAGES_PER_PAGE)}>
              Next
            </Button>
          </Group>
        </Stack>
      )}
    </Loaded>
  );
}

/**
 * The overview: the range's runs, steps, active agents, errors and latency at a glance, then a chart of each over
 * time, tool usage and what the range cost. An organization with no runs in the range sees why there is nothing.
 */
export function Dashboard() {
  const format = useFormatters();
  const { filters, query, problem } = useFilters();
  const ready = problem === null;
  const overview = useMetric('overview', query, ready, observabilityApi.overview);
  const hasRuns = (overview.data?.runs ?? 0) > 0;
  const charted = ready && hasRuns;
  const latency = useMetric('latency', query, charted, observabilityApi.latency);
  const ttft = useMetric('time-to-first-token', query, charted, observabilityApi.timeToFirstToken);
  const errors = useMetric('errors', query, charted, observabilityApi.errors);
  const steps = useMetric('steps', query, charted, observabilityApi.steps);
  const activeAgents = useMetric('active-agents', query, charted, observabilityApi.activeAgents);
  const tools = useMetric('tool-usage', query, charted, observabilityApi.toolUsage);
  const costs = useQuery({ queryKey: observabilityKeys.costs(query), queryFn: () => observabilityApi.costs(query), enabled: charted, placeholderData: keepPreviousData });

  if (!ready) return null;
  const periods = rangePeriods(filters, query, overview.dataUpdatedAt);
  return (
    <Loaded
      query={overview}
      errorTitle="The overview could not be loaded"
      isEmpty={(data) => data.runs === 0}
      empty={
        <EmptyState title="No runs in this range yet">
          Send a message to an agent (in the console or through the API): its run, steps, tool calls and latency show here, and its trace in the
          trace explorer. Or choose a longer range.
        </EmptyState>
      }
    >
      {(data) => (
        <Stack gap="lg" data-testid="dashboard">
          <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }} spacing="md">
            <Stat label="Runs" value={format.number(data.runs)} testId="stat-runs" />
            <Stat label="Steps" value={format.number(data.steps)} testId="stat-steps" hint={`${(data.steps / Math.max(1, data.runs)).toFixed(1)} per run`} />
            <Stat label="Active agents" value={format.number(data.activeAgents)} testId="stat-active-agents" />
            <Stat label="API errors" value={format.number(data.errors.apiError)} testId="stat-api-errors" />
            <Stat label="Tool errors" value={format.number(data.errors.toolError)} testId="stat-tool-errors" />
            <Stat
              label="Run duration p50"
              value={formatMs(data.latencyMs.p50)}
              testId="stat-latency-p50"
              hint={`p95 ${formatMs(data.latencyMs.p95)} · p99 ${formatMs(data.latencyMs.p99)}`}
            />
          </SimpleGrid>
          <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
            <Section title="Run duration" testId="latency-section">
              <Loaded query={latency} errorTitle="The run durations could not be loaded" height={200}>
                {(result) => (
                  <ChartSlot>
                    <PercentileChart data={fillPeriods(result.series, periods, (period) => ({ period, runs: 0, p50: null, p95: null, p99: null }))} testId="latency-chart" />
                  </ChartSlot>
                )}
              </Loaded>
            </Section>
            <Section title="Time to first token" testId="ttft-section">
              <Loaded
                query={ttft}
                errorTitle="The times to first token could not be loaded"
                height={200}
                isEmpty={(result) => result.series.length === 0}
                empty={<EmptyState title="No first tokens measured in this range" />}
              >
                {(result) => (
                  <ChartSlot>
                    <PercentileChart data={fillPeriods(result.series, periods, (period) => ({ period, runs: 0, p50: null, p95: null, p99: null }))} testId="ttft-chart" />
                  </ChartSlot>
                )}
              </Loaded>
            </Section>
            <Section title="Errors" testId="errors-section">
              <Loaded query={errors} errorTitle="The errors could not be loaded" height={200}>
                {(result) => (
                  <Stack gap="xs">
                    <Text size="sm" data-testid="errors-total">
                      {result.series.some((row) => row.apiError + row.toolError > 0)
                        ? `Runs with an error: ${format.number(result.series.reduce((sum, row) => sum + row.apiError, 0))} by the model API, ${format.number(result.series.reduce((sum, row) => sum + row.toolError, 0))} by a tool`
                        : 'No run had an error in this range.'}
                    </Text>
                    <ChartSlot>
                      <ErrorsChart data={fillPeriods(result.series, periods, (period) => ({ period, runs: 0, apiError: 0, toolError: 0 }))} />
                    </ChartSlot>
                  </Stack>
                )}
              </Loaded>
            </Section>
            <Section title="Steps per run" testId="steps-section">
              <Loaded query={steps} errorTitle="The steps could not be loaded" height={200}>
                {(result) => (
                  <ChartSlot>
                    <StepsChart data={fillPeriods(result.series, periods, (period) => ({ period, runs: 0, steps: 0, stepsPerRun: 0 }))} />
                  </ChartSlot>
                )}
              </Loaded>
            </Section>
            <Section title="Active agents" testId="active-agents-section">
              <Loaded query={activeAgents} errorTitle="The active agents could not be loaded" height={200}>
                {(result) => (
                  <ChartSlot>
                    <ActiveAgentsChart data={fillPeriods(result.series, periods, (period) => ({ period, activeAgents: 0 }))} />
                  </ChartSlot>
                )}
              </Loaded>
            </Section>
            <Section title="Cost" testId="cost-section">
              <Loaded
                query={costs}
                errorTitle="The costs could not be loaded"
                height={200}
                isEmpty={(result) => result.series.length === 0}
                empty={<EmptyState title="No charged steps in this range" />}
              >
                {(result) => (
                  <Stack gap="xs">
                    <Text size="sm">
                      <span data-testid="cost-total">{format.number(result.credits)}</span> credits (${result.dollars.toFixed(4)})
                    </Text>
                    <ChartSlot>
                      <CostChart data={fillPeriods(result.series, periods, (period) => ({ period, steps: 0, credits: 0, dollars: 0 }))} testId="cost-chart" />
                    </ChartSlot>
                  </Stack>
                )}
              </Loaded>
            </Section>
          </SimpleGrid>
          <Section title="Tool usage" testId="tool-usage-section">
            <Loaded
              query={tools}
              errorTitle="The tool usage could not be loaded"
              isEmpty={(result) => result.tools.length === 0}
              empty={<EmptyState title="No tool was called in this range" />}
            >
              {(result) => (
                <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
                  <Table striped data-testid="tool-usage-table">
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>Tool</Table.Th>
                        <Table.Th ta="right">Calls</Table.Th>
                        <Table.Th ta="right">Call error rate</Table.Th>
                        <Table.Th ta="right">Runs calling it</Table.Th>
                        <Table.Th ta="right">Runs with a tool error</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {result.tools.map((tool) => (
                        <Table.Tr key={tool.toolName} data-testid="tool-usage-row" data-tool={tool.toolName}>
                          <Table.Td>{tool.toolName}</Table.Td>
                          <Table.Td ta="right" data-testid="tool-calls">
                            {format.number(tool.calls)}
                          </Table.Td>
                          <Table.Td ta="right" data-testid="tool-call-error-rate">
                            {tool.calls > 0 ? formatPercent(tool.failedCalls / tool.calls) : '—'}
                          </Table.Td>
                          <Table.Td ta="right" data-testid="tool-runs">
                            {format.number(tool.runs)}
                          </Table.Td>
                          <Table.Td ta="right" data-testid="tool-error-rate">
                            {formatPercent(tool.errorRate)}
                          </Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                  <ChartSlot>
                    <ToolUsageChart data={result.tools} />
                  </ChartSlot>
                </SimpleGrid>
              )}
            </Loaded>
          </Section>
          <Section title="Slowest first tokens" testId="ttft-messages-section">
            <SlowestFirstTokens query={query} />
          </Section>
        </Stack>
      )}
    </Loaded>
  );
}
