import type { ReactElement } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useMantineTheme } from '@engram/console-kit';

/*
 * The remote's charts (recharts), in a module of their own that the screens load on first use, so the library is
 * fetched only once there is something to draw.
 */

type Series = { key: string; label: string; color: string };

const HEIGHT = 200;

/** `2026-11-27T14:00` → `11-27 14:00`, `2026-11-27` → `11-27`. */
const tick = (period: string) => period.slice(5).replace('T', ' ');

function usePalette() {
  const theme = useMantineTheme();
  return (name: string, shade = 6) => theme.colors[name]?.[shade] ?? theme.colors.blue[6];
}

function Frame({ testId, children }: { testId: string; children: ReactElement }) {
  return (
    <div style={{ width: '100%', height: HEIGHT }} data-testid={testId}>
      <ResponsiveContainer>{children}</ResponsiveContainer>
    </div>
  );
}

function PeriodBars({ data, series, testId, stacked = false, unit }: { data: object[]; series: Series[]; testId: string; stacked?: boolean; unit?: string }) {
  return (
    <Frame testId={testId}>
      <BarChart data={data} margin={{ top: 4, right: 4, bottom: 0, left: -8 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="period" tickFormatter={tick} fontSize={11} minTickGap={12} />
        <YAxis allowDecimals={unit !== undefined} fontSize={11} unit={unit} />
        <Tooltip />
        {series.length > 1 ? <Legend wrapperStyle={{ fontSize: 12 }} /> : null}
        {series.map((item) => (
          <Bar key={item.key} dataKey={item.key} name={item.label} fill={item.color} stackId={stacked ? 'stack' : undefined} isAnimationActive={false} />
        ))}
      </BarChart>
    </Frame>
  );
}

/** p50, p95 and p99 per period, in milliseconds (run duration or time to first token). */
export function PercentileChart({ data, testId }: { data: Array<{ period: string; p50: number | null; p95: number | null; p99: number | null }>; testId: string }) {
  const color = usePalette();
  return (
    <Frame testId={testId}>
      <LineChart data={data} margin={{ top: 4, right: 4, bottom: 0, left: 0 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="period" tickFormatter={tick} fontSize={11} minTickGap={12} />
        <YAxis fontSize={11} unit=" ms" width={70} />
        <Tooltip formatter={(value) => `${Math.round(Number(value))} ms`} />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        <Line dataKey="p50" name="p50" stroke={color('blue')} dot isAnimationActive={false} />
        <Line dataKey="p95" name="p95" stroke={color('orange')} dot isAnimationActive={false} />
        <Line dataKey="p99" name="p99" stroke={color('red')} dot isAnimationActive={false} />
      </LineChart>
    </Frame>
  );
}

export function ErrorsChart({ data }: { data: Array<{ period: string; apiError: number; toolError: number }> }) {
  const color = usePalette();
  return (
    <PeriodBars
      testId="errors-chart"
      data={data}
      stacked
      series={[
        { key: 'apiError', label: 'API errors', color: color('red') },
        { key: 'toolError', label: 'Tool errors', color: color('orange') },
      ]}
    />
  );
}

export function StepsChart({ data }: { data: Array<{ period: string; stepsPerRun: number }> }) {
  const color = usePalette();
  return <PeriodBars testId="steps-chart" data={data} unit="" series={[{ key: 'stepsPerRun', label: 'Steps per run', color: color('teal') }]} />;
}

export function ActiveAgentsChart({ data }: { data: Array<{ period: string; activeAgents: number }> }) {
  const color = usePalette();
  return <PeriodBars testId="active-agents-chart" data={data} series={[{ key: 'activeAgents', label: 'Active agents', color: color('grape') }]} />;
}

export function CostChart({ data, testId }: { data: Array<{ period: string; credits: number }>; testId: string }) {
  const color = usePalette();
  return <PeriodBars testId={testId} data={data} series={[{ key: 'credits', label: 'Credits', color: color('indigo') }]} />;
}

/** The calls of each tool, those that failed apart. */
export function ToolUsageChart({ data }: { data: Array<{ toolName: string; calls: number; failedCalls: number }> }) {
  const color = usePalette();
  const rows = data.map((tool) => ({ tool: tool.toolName, ok: tool.calls - tool.failedCalls, failed: tool.failedCalls }));
  return (
    <Frame testId="tool-usage-chart">
      <BarChart data={rows} layout="vertical" margin={{ top: 4, right: 8, bottom: 0, left: 8 }}>
        <CartesianGrid strokeDasharray="3 3" horizontal={false} />
        <XAxis type="number" allowDecimals={false} fontSize={11} />
        <YAxis type="category" dataKey="tool" fontSize={11} width={120} />
        <Tooltip />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        <Bar dataKey="ok" name="Calls that succeeded" stackId="calls" fill={color('teal')} isAnimationActive={false} />
        <Bar dataKey="failed" name="Calls that failed" stackId="calls" fill={color('red')} isAnimationActive={false} />
      </BarChart>
    </Frame>
  );
}

/** Credits per model (the models screen's overview). */
export function ModelCreditsChart({ data }: { data: Array<{ model: string; credits: number }> }) {
  const color = usePalette();
  return (
    <Frame testId="model-credits-chart">
      <BarChart data={data} margin={{ top: 4, right: 4, bottom: 0, left: -8 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="model" fontSize={11} />
        <YAxis fontSize={11} />
        <Tooltip />
        <Bar dataKey="credits" name="Credits" fill={color('indigo')} isAnimationActive={false} />
      </BarChart>
    </Frame>
  );
}
