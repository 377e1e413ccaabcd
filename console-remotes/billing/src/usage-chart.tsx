import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ErrorNotice, Group, SegmentedControl, Skeleton, Stack, Text, useMantineTheme } from '@engram/console-kit';
import { billingApi, billingKeys, type UsageBucket } from './billing-api.js';

const DAY_MS = 24 * 60 * 60 * 1000;

const RANGES = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
];

const METRICS = [
  { value: 'credits', label: 'Credits' },
  { value: 'requests', label: 'Requests' },
] as const;

type Metric = (typeof METRICS)[number]['value'];

const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);

/** One row per day of the range (days without use are zero), one column per model. */
export function usageSeries(usage: UsageBucket[], days: number, end: number, metric: Metric) {
  const models = [...new Set(usage.map((bucket) => bucket.model))].sort();
  const rows = new Map<string, Record<string, number | string>>();
  for (let day = days - 1; day >= 0; day--) {
    const date = dayOf(end - day * DAY_MS);
    rows.set(date, { date, ...Object.fromEntries(models.map((model) => [model, 0])) });
  }
  for (const bucket of usage) {
    const row = rows.get(bucket.date);
    if (row) row[bucket.model] = Number(row[bucket.model] ?? 0) + bucket[metric];
  }
  return { models, rows: [...rows.values()] };
}

/** What the organization's agents spent per day and model, from the ledger's metered steps. */
export function UsageChart() {
  const theme = useMantineTheme();
  const [range, setRange] = useState('30');
  const [metric, setMetric] = useState<Metric>('credits');
  // The range is whole UTC days up to the end of today (the day the screen was opened), so today's steps are in.
  const [end] = useState(() => Date.parse(dayOf(Date.now())) + DAY_MS);
  const days = Number(range);
  const startDate = new Date(end - days * DAY_MS).toISOString();
  const usage = useQuery({
    queryKey: billingKeys.usage(startDate),
    queryFn: () => billingApi.usage({ startDate, endDate: new Date(end).toISOString() }),
    placeholderData: keepPreviousData,
  });
  const palette = ['blue', 'teal', 'grape', 'orange', 'cyan', 'pink', 'lime', 'indigo'].map((color) => theme.colors[color]?.[6] ?? theme.colors.blue[6]);
  const series = usage.data ? usageSeries(usage.data.usage, days, end - DAY_MS, metric) : null;
  const total = usage.data?.usage.reduce((sum, bucket) => sum + bucket[metric], 0) ?? 0;
  return (
    <Stack gap="xs" data-testid="usage-chart">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Text size="sm" fw={500}>
          Usage: <span data-testid="usage-total">{total.toLocaleString()}</span> {total === 1 ? metric.slice(0, -1) : metric} in {days} days
        </Text>
        <Group gap="xs">
          <SegmentedControl size="xs" data={[...METRICS]} value={metric} onChange={(value) => setMetric(value as Metric)} aria-label="Usage measure" />
          <SegmentedControl size="xs" data={RANGES} value={range} onChange={setRange} aria-label="Usage range" />
        </Group>
      </Group>
      {usage.error ? <ErrorNotice error={usage.error} onRetry={() => void usage.refetch()} /> : null}
      {series ? (
        <div style={{ width: '100%', height: 220 }}>
          <ResponsiveContainer>
            <BarChart data={series.rows} margin={{ top: 4, right: 4, bottom: 0, left: -12 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="date" tickFormatter={(date: string) => date.slice(5)} fontSize={11} minTickGap={12} />
              <YAxis allowDecimals={false} fontSize={11} />
              <Tooltip />
              {series.models.length > 1 ? <Legend wrapperStyle={{ fontSize: 12 }} /> : null}
              {series.models.map((model, index) => (
                <Bar key={model} dataKey={model} stackId="usage" fill={palette[index % palette.length]} isAnimationActive={false} />
              ))}
            </BarChart>
          </ResponsiveContainer>
        </div>
      ) : (
        <Skeleton h={220} />
      )}
      {series && series.models.length === 0 ? (
        <Text size="xs" c="dimmed">
          No metered steps in this range yet.
        </Text>
      ) : null}
    </Stack>
  );
}
