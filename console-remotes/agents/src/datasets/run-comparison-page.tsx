import { Badge, Button, Card, ErrorNotice, Link, PageHeader, Skeleton, Stack, Table, Text, Title, useFormatters, useSearchParams } from '@engram/console-kit';
import { useRunComparison } from './dataset-queries.js';
import type { DatasetRunResult } from './datasets-api.js';
import { ResultErrors } from './run-results-page.js';
import { formatScore, resultMeans, scoreChange, type ScoreChange } from './run-comparison.js';
import { plural } from '../plural.js';

const CHANGE_COLORS: Record<ScoreChange, string> = { better: 'teal', worse: 'red', same: 'gray', unscored: 'gray' };

function ResultCell({ result, ms }: { result: DatasetRunResult | null; ms: (value: number | null) => string }) {
  const format = useFormatters();
  if (!result) return <Text size="xs" c="dimmed">not in this run</Text>;
  return (
    <Stack gap={2}>
      <Text size="sm" data-testid="compared-answer" style={{ whiteSpace: 'pre-wrap' }}>
        {result.answer ?? result.status}
      </Text>
      <Text size="xs" c="dimmed">
        <Text span fw={600} c="var(--mantine-color-text)" data-testid="compared-score">
          {formatScore(result.score)}
        </Text>{' '}
        · {ms(result.latencyMs)} · {result.steps === null ? '— steps' : plural(result.steps, 'step', 'steps', format.number)} · {format.number(result.totalTokens)} tokens · {format.number(result.cost)} credits
      </Text>
      {result.error || result.toolErrors ? <ResultErrors result={result} /> : null}
    </Stack>
  );
}

/** Two runs of one dataset side by side: their totals and means, then each item's answers and scores. */
export function RunComparisonPage() {
  const [params] = useSearchParams();
  const baseRunId = params.get('base') ?? '';
  const otherRunId = params.get('other') ?? '';
  const format = useFormatters();
  const compared = useRunComparison(baseRunId, otherRunId);
  const back = (
    <Button variant="subtle" component={Link} to=".." relative="path">
      Back to the dataset
    </Button>
  );
  if (compared.error) return <ErrorNotice error={compared.error} title="The runs could not be compared" onRetry={() => void compared.refetch()} />;
  if (!compared.data) return <Skeleton h={160} radius="md" />;
  const { base, other, rows } = compared.data;
  const ms = (value: number | null) => format.durationNs(value === null ? null : value * 1e6);
  const baseMeans = resultMeans(rows.map((row) => row.base));
  const otherMeans = resultMeans(rows.map((row) => row.other));
  const measures: Array<{ label: string; base: string; other: string }> = [
    { label: 'Items finished', base: `${baseMeans.finished} of ${base.summary.items}`, other: `${otherMeans.finished} of ${other.summary.items}` },
    { label: 'Mean score', base: formatScore(base.summary.meanScore), other: formatScore(other.summary.meanScore) },
    { label: 'Median latency', base: ms(base.summary.medianLatencyMs), other: ms(other.summary.medianLatencyMs) },
    { label: 'Mean latency', base: ms(baseMeans.meanLatencyMs), other: ms(otherMeans.meanLatencyMs) },
    { label: 'Mean steps', base: format.number(baseMeans.meanSteps), other: format.number(otherMeans.meanSteps) },
    { label: 'Total tokens', base: format.number(base.summary.totalTokens), other: format.number(other.summary.totalTokens) },
    { label: 'Mean tokens', base: format.number(baseMeans.meanTokens), other: format.number(otherMeans.meanTokens) },
    { label: 'Total cost (credits)', base: format.number(base.summary.totalCost), other: format.number(other.summary.totalCost) },
    { label: 'Tool errors', base: format.number(base.summary.toolErrors), other: format.number(other.summary.toolErrors) },
    { label: 'Failed items', base: format.number(base.summary.failed), other: format.number(other.summary.failed) },
  ];
  return (
    <>
      <PageHeader title={`${base.run.templateVersion} and ${other.run.templateVersion}`} description="Two runs of the dataset, item by item" actions={back} />
      <Title order={4} mb="sm">
        Totals and means
      </Title>
      <Card withBorder radius="lg" p={0} mb="xl">
        <Table verticalSpacing="xs" horizontalSpacing="md" data-testid="comparison-totals">
          <Table.Thead>
            <Table.Tr>
              <Table.Th />
              <Table.Th>{base.run.templateVersion}</Table.Th>
              <Table.Th>{other.run.templateVersion}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {measures.map((measure) => (
              <Table.Tr key={measure.label} data-testid={`total-${measure.label}`}>
                <Table.Td>
                  <Text size="sm" c="dimmed">
                    {measure.label}
                  </Text>
                </Table.Td>
                <Table.Td data-testid="total-base">{measure.base}</Table.Td>
                <Table.Td data-testid="total-other">{measure.other}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Card>
      <Title order={4} mb="sm">
        Items
      </Title>
      <Card withBorder radius="lg" p={0}>
        <Table.ScrollContainer minWidth={900}>
          <Table verticalSpacing="sm" horizontalSpacing="md" data-testid="comparison-rows">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Message</Table.Th>
                <Table.Th>Expected</Table.Th>
                <Table.Th>{base.run.templateVersion}</Table.Th>
                <Table.Th>{other.run.templateVersion}</Table.Th>
                <Table.Th>Score</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row) => {
                const change = scoreChange(row.base, row.other);
                return (
                  <Table.Tr key={row.item.id} data-testid="comparison-row" data-change={change}>
                    <Table.Td>
                      <Text size="sm" data-testid="compared-message">
                        {row.item.createMessage.content}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{row.item.expectedAnswer ?? ''}</Text>
                    </Table.Td>
                    <Table.Td data-testid="compared-base">
                      <ResultCell result={row.base} ms={ms} />
                    </Table.Td>
                    <Table.Td data-testid="compared-other">
                      <ResultCell result={row.other} ms={ms} />
                    </Table.Td>
                    <Table.Td>
                      <Badge size="sm" variant="light" color={CHANGE_COLORS[change]} tt="none">
                        {change}
                      </Badge>
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
