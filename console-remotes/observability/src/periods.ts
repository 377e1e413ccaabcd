const HOUR_MS = 3_600_000;

/**
 * The periods of `[startMs, endMs)` in the timezone, oldest first, written as the API writes them: `YYYY-MM-DD`
 * (daily) or `YYYY-MM-DDTHH:00` (hourly), in local time. Stepping an hour at a time from the start (and the last
 * instant) meets every local hour and day, whatever the zone's offset from UTC (half hours included).
 */
export function periodsOf(startMs: number, endMs: number, granularity: 'hourly' | 'daily', timeZone: string): string[] {
  const format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', hourCycle: 'h23' });
  const periodOf = (time: number) => {
    const parts = Object.fromEntries(format.formatToParts(time).map((part) => [part.type, part.value]));
    const day = `${parts.year}-${parts.month}-${parts.day}`;
    return granularity === 'daily' ? day : `${day}T${parts.hour}:00`;
  };
  const periods = new Set<string>();
  for (let time = startMs; time < endMs; time += HOUR_MS) periods.add(periodOf(time));
  if (endMs > startMs) periods.add(periodOf(endMs - 1));
  return [...periods];
}

/** The series with a row for every period (`empty` makes the missing ones), in period order. */
export function fillPeriods<Row extends { period: string }>(series: Row[], periods: string[], empty: (period: string) => Row): Row[] {
  const byPeriod = new Map(series.map((row) => [row.period, row]));
  const all = [...new Set([...periods, ...byPeriod.keys()])].sort();
  return all.map((period) => byPeriod.get(period) ?? empty(period));
}
