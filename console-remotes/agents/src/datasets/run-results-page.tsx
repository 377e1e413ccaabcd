import type { ReactNode } from 'react';
import { Badge, Button, Card, ErrorNotice, Group, Link, PageHeader, SimpleGrid, Skeleton, Table, Text, Tooltip, useFormatters, useParams } from '@engram/console-kit';
import { Progress } from '@engram/console-kit/widgets';
import { useAllDatasetItems, useDatasetRun } from './dataset-queries.js';
import type { DatasetRunResult } from './datasets-api.js';
import { formatScore, runProgress } from './run-comparison.js';

export function Stat({ label, value, testId }: { label: string; value: ReactNode; testId: string }) {
  return (
    <Card withBorder radius="md" p="sm">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={600} data-testid={testId}>
        {value}
      </Text>
    </Card>
  );
}

const RESULT_COLORS: Record<DatasetRunResult['status'], string> = { pending: 'gray', running: 'blue', grading: 'violet', completed: 'teal', failed: 'red' };

/** What went wrong with an item: its run's error, and how many tool calls failed. */
export function ResultErrors({ result }: { result: DatasetRunResult }) {
  if (!result.error && !result.toolErrors) return <Text size="xs" c="dimmed">none</Text>;
  return (
    <Text size="xs" c="red">
      {result.toolErrors ? `${result.toolErrors} tool ${result.toolErrors === 1 ? 'error' : 'errors'}` : ''}
      {result.toolErrors && result.error ? '; ' : ''}
      {result.error ?? ''}
    </Text>
  );
}

/** One run of a dataset: its progress while it runs, then per item the answer, its score and what it took. */
export function RunResultsPage() {
  const { datasetId = '', runId = '' } = useParams();
  const format = useFormatters();
  const details = useDatasetRun(runId);
  const items = useAllDatasetItems(datasetId);
  if (details.error) return <ErrorNotice error={details.error} title="The run could not be loaded" onRetry={() => void details.refetch()} />;
  if (!details.data) return <Skeleton h={160} radius="md" />;
  const { run, summary, results } = details.data;
  const progress = runProgress(run);
  const itemById = new Map((items.data ?? []).map((item) => [item.id, item]));
  const ms = (value: number | null) => format.durationNs(value === null ? null : value * 1e6);
  return (
    <>
      <PageHeader
        title={
          <Group gap="sm">
            <span>Run against {run.templateVersion}</span>
            <Badge variant="light" tt="none" data-testid="run-status">
              {run.status}
            </Badge>
          </Group>
        }
        description={`Started ${format.dateTime(run.startedAt)}${run.completedAt ? `, finished ${format.dateTime(run.completedAt)}` : ''}`}
        actions={
          <Button variant="subtle" component={Link} to="../.." relative="path">
            Back to the dataset
          </Button>
        }
      />
      <Progress value={progress.percent} mb={4} aria-label="Run progress" animated={run.status === 'running'} />
      <Text size="xs" c="dimmed" mb="md" data-testid="run-progress">
        {progress.finished} of {progress.total} items finished
      </Text>
      <SimpleGrid cols={{ base: 2, sm: 3, md: 6 }} mb="lg">
        <Stat label="Mean score" value={formatScore(summary.meanScore)} testId="summary-score" />
        <Stat label="Median latency" value={ms(summary.medianLatencyMs)} testId="summary-latency" />
        <Stat label="Tokens" value={format.number(summary.totalTokens)} testId="summary-tokens" />
        <Stat label="Cost (credits)" value={format.number(summary.totalCost)} testId="summary-cost" />
        <Stat label="Tool errors" value={format.number(summary.toolErrors)} testId="summary-tool-errors" />
        <Stat label="Failed items" value={format.number(summary.failed)} testId="summary-failed" />
      </SimpleGrid>
      {items.error ? <ErrorNotice error={items.error} title="The items' messages could not be loaded" onRetry={() => void items.refetch()} /> : null}
      <Card withBorder radius="lg" p={0}>
        <Table.ScrollContainer minWidth={900}>
          <Table verticalSpacing="xs" horizontalSpacing="sm" data-testid="results-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Message</Table.Th>
                <Table.Th>Expected</Table.Th>
                <Table.Th>Answer</Table.Th>
                <Table.Th>Score</Table.Th>
                <Table.Th>Latency</Table.Th>
                <Table.Th>Steps</Table.Th>
                <Table.Th>Tokens</Table.Th>
                <Table.Th>Cost</Table.Th>
                <Table.Th>Errors</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {results.map((result) => {
                const item = itemById.get(result.itemId);
                return (
                  <Table.Tr key={result.itemId} data-testid="run-result" data-status={result.status}>
                    <Table.Td>
                      <Text size="sm" data-testid="result-message">
                        {item ? (
                          item.createMessage.content
                        ) : (
                          <Text span c="dimmed" size="xs">
                            {items.isPending ? 'loading…' : 'deleted item'}
                          </Text>
                        )}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{item?.expectedAnswer ?? ''}</Text>
                    </Table.Td>
                    <Table.Td>
                      {result.answer === null ? (
                        <Badge size="xs" variant="light" color={RESULT_COLORS[result.status]} tt="none">
                          {result.status}
                        </Badge>
                      ) : (
                        <Text size="sm" data-testid="result-answer" style={{ whiteSpace: 'pre-wrap' }}>
                          {result.answer}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Tooltip label={result.scoreReason ?? 'No reason given'} disabled={!result.scoreReason}>
                        <Text size="sm" fw={600} data-testid="result-score">
                          {formatScore(result.score)}
                        </Text>
                      </Tooltip>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{ms(result.latencyMs)}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{format.number(result.steps)}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" data-testid="result-tokens">
                        {format.number(result.totalTokens)}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{format.number(result.cost)}</Text>
                    </Table.Td>
                    <Table.Td>
                      <ResultErrors result={result} />
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Card>
    </>
  );
}
