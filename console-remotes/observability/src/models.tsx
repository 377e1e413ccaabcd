import { lazy } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Anchor, Group, Link, SimpleGrid, Stack, Table, Text, useFormatters, useParams } from '@engram/console-kit';
import { rangePeriods, useFilters } from './filters.js';
import { fillPeriods } from './periods.js';
import { observabilityApi, observabilityKeys, type CostSummary, type ModelUsageSummary } from './observability-api.js';
import { ChartSlot, EmptyState, formatDollars, Loaded, Section, SectionLink, useFilteredPath } from './shared.js';

const charts = () => import('./charts.js');
const ModelCreditsChart = lazy(() => charts().then((module) => ({ default: module.ModelCreditsChart })));
const CostChart = lazy(() => charts().then((module) => ({ default: module.CostChart })));

type ModelRow = ModelUsageSummary & { modelId: string | null; chargedSteps: number };

/** The steps table's usage per model beside the ledger's charges for it (by the model's name). */
export function modelRows(models: ModelUsageSummary[], costs: CostSummary): ModelRow[] {
  return models.map((model) => {
    const charged = costs.models.find((cost) => cost.model === model.model);
    return { ...model, modelId: charged?.modelId ?? null, chargedSteps: charged?.steps ?? 0 };
  });
}

function ModelName({ row }: { row: ModelRow }) {
  const target = useFilteredPath(`models/${row.modelId ?? ''}`);
  if (!row.modelId) return <>{row.model}</>;
  return (
    <Anchor component={Link} to={target} size="sm">
      {row.model}
    </Anchor>
  );
}

/** Usage and cost per model over the range: steps, runs, tokens and credits, each model opening its own costs. */
export function ModelsPage() {
  const format = useFormatters();
  const { query, problem } = useFilters();
  const ready = problem === null;
  const summary = useQuery({ queryKey: observabilityKeys.modelSummary(query), queryFn: () => observabilityApi.modelSummary(query), enabled: ready, placeholderData: keepPreviousData });
  const costs = useQuery({ queryKey: observabilityKeys.costs(query), queryFn: () => observabilityApi.costs(query), enabled: ready, placeholderData: keepPreviousData });
  const both = {
    data: summary.data && costs.data ? modelRows(summary.data.models, costs.data) : undefined,
    error: summary.error ?? costs.error,
    isPending: summary.isPending || costs.isPending,
    refetch: () => Promise.all([summary.refetch(), costs.refetch()]),
  };
  if (!ready) return null;
  return (
    <Loaded
      query={both}
      errorTitle="The usage per model could not be loaded"
      height={240}
      isEmpty={(rows) => rows.length === 0}
      empty={
        <EmptyState title="No model was used in this range" testId="no-model-usage">
          Each step of an agent calls a model: its tokens and what it cost show here by model.
        </EmptyState>
      }
    >
      {(rows) => (
        <Stack gap="lg">
          <Section title="Usage and cost per model" testId="models-section">
            <Table striped highlightOnHover data-testid="models-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Model</Table.Th>
                  <Table.Th ta="right">Runs</Table.Th>
                  <Table.Th ta="right">Steps</Table.Th>
                  <Table.Th ta="right">Prompt tokens</Table.Th>
                  <Table.Th ta="right">Completion tokens</Table.Th>
                  <Table.Th ta="right">Total tokens</Table.Th>
                  <Table.Th ta="right">Credits</Table.Th>
                  <Table.Th ta="right">Cost</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((row) => (
                  <Table.Tr key={row.model} data-testid="model-row" data-model={row.model}>
                    <Table.Td>
                      <ModelName row={row} />
                    </Table.Td>
                    <Table.Td ta="right" data-testid="model-runs">
                      {format.number(row.runs)}
                    </Table.Td>
                    <Table.Td ta="right" data-testid="model-steps">
                      {format.number(row.steps)}
                    </Table.Td>
                    <Table.Td ta="right">{format.number(row.promptTokens)}</Table.Td>
                    <Table.Td ta="right">{format.number(row.completionTokens)}</Table.Td>
                    <Table.Td ta="right" data-testid="model-total-tokens">
                      {format.number(row.totalTokens)}
                    </Table.Td>
                    <Table.Td ta="right" data-testid="model-credits">
                      {format.number(row.credits)}
                    </Table.Td>
                    <Table.Td ta="right">{formatDollars(row.dollars)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Section>
          <Section title="Credits per model" testId="model-credits-section">
            <ChartSlot>
              <ModelCreditsChart data={rows} />
            </ChartSlot>
          </Section>
        </Stack>
      )}
    </Loaded>
  );
}

/** One registered model: its price per step by context window, and what its steps cost per period of the range. */
export function ModelCostsPage() {
  const { modelId = '' } = useParams();
  const format = useFormatters();
  const { filters, query, problem } = useFilters();
  const costs = useQuery({
    queryKey: observabilityKeys.modelCosts(modelId, query),
    queryFn: () => observabilityApi.modelCosts(modelId, query),
    enabled: problem === null,
    placeholderData: keepPreviousData,
  });
  return (
    <Stack gap="lg">
      <Group>
        <SectionLink to="models">← All models</SectionLink>
      </Group>
      <Loaded query={costs} errorTitle="This model's costs could not be loaded" height={240}>
        {(data) => (
          <Stack gap="lg">
            <Section title={data.model} testId="model-costs">
              <SimpleGrid cols={{ base: 2, md: 4 }} spacing="sm">
                <Stack gap={0}>
                  <Text size="xs" c="dimmed">
                    Brand
                  </Text>
                  <Text size="sm">{data.brand}</Text>
                </Stack>
                <Stack gap={0}>
                  <Text size="xs" c="dimmed">
                    Charged steps
                  </Text>
                  <Text size="sm" data-testid="model-charged-steps">
                    {format.number(data.steps)}
                  </Text>
                </Stack>
                <Stack gap={0}>
                  <Text size="xs" c="dimmed">
                    Credits
                  </Text>
                  <Text size="sm" data-testid="model-charged-credits">
                    {format.number(data.credits)}
                  </Text>
                </Stack>
                <Stack gap={0}>
                  <Text size="xs" c="dimmed">
                    Cost
                  </Text>
                  <Text size="sm">{formatDollars(data.dollars)}</Text>
                </Stack>
              </SimpleGrid>
            </Section>
            <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
              <Section title="Charges over time" testId="model-cost-series">
                {data.series.length === 0 ? (
                  <EmptyState title="No charged steps of this model in this range" />
                ) : (
                  <ChartSlot>
                    <CostChart
                      data={fillPeriods(data.series, rangePeriods(filters, query, costs.dataUpdatedAt), (period) => ({ period, steps: 0, credits: 0, dollars: 0 }))}
                      testId="model-cost-chart"
                    />
                  </ChartSlot>
                )}
              </Section>
              <Section title="Price per step" testId="model-step-costs">
                {data.stepCosts.costs.length === 0 ? (
                  <Text size="sm" c="dimmed">
                    No price is set for this model.
                  </Text>
                ) : (
                  <Table data-testid="step-costs-table">
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>Context window up to</Table.Th>
                        <Table.Th ta="right">Credits per step</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {data.stepCosts.costs.map((entry) => (
                        <Table.Tr key={entry.maxContextWindowSize}>
                          <Table.Td>{format.number(entry.maxContextWindowSize)} tokens</Table.Td>
                          <Table.Td ta="right">{format.number(entry.cost)}</Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                )}
              </Section>
            </SimpleGrid>
          </Stack>
        )}
      </Loaded>
    </Stack>
  );
}
