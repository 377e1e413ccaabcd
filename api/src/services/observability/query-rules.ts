import { z } from 'zod';

/**
 * The observability API's input rules and their exact messages (spec 000 §5, §9), shared by the trace search and
 * the metrics routes.
 */
export const OBSERVABILITY_MESSAGES = {
  startBeforeEnd: 'startTimeUnix must be less than endTimeUnix',
  maxRange: 'Time range must be at most 365 days',
  startTimestamp: 'startTimeUnix must be a valid timestamp',
  endTimestamp: 'endTimeUnix must be a valid timestamp',
  durationFormat: 'Invalid duration format',
  dateFormat: 'Invalid date format',
  limit: 'Limit must be between 1 and 25',
  offset: 'Offset must be greater than or equal to 0',
  timezone: 'Invalid timezone',
} as const;

export const MAX_RANGE_DAYS = 365;
const DAY_SECONDS = 86_400;

/** `250ms`, `1.5s`, `2m` → milliseconds; null when the text is no duration. */
export function parseDuration(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(text.trim());
  if (!match) return null;
  const amount = Number(match[1]);
  const unit = match[2] as 'ms' | 's' | 'm';
  return amount * { ms: 1, s: 1000, m: 60_000 }[unit];
}

/** An ISO 8601 date or date-time; null otherwise (Date.parse alone accepts too much, e.g. "1"). */
export function parseIsoDate(text: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text.trim())) return null;
  const time = Date.parse(text);
  return Number.isNaN(time) ? null : new Date(time);
}

export function isTimezone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** From 1970 to the end of year 9999, the range a JavaScript date and PostgreSQL both hold. */
const isUnixSeconds = (value: number) => Number.isFinite(value) && value >= 0 && value <= 253_402_300_799;

const unixSeconds = (message: string) => z.coerce.number({ error: message }).refine(isUnixSeconds, { message });

/** A custom range in Unix seconds: start before end, at most 365 days long. */
export const TimeRange = z
  .object({
    startTimeUnix: unixSeconds(OBSERVABILITY_MESSAGES.startTimestamp),
    endTimeUnix: unixSeconds(OBSERVABILITY_MESSAGES.endTimestamp),
  })
  .superRefine((range, issues) => {
    // The fields' own rules have spoken already.
    if (!isUnixSeconds(range.startTimeUnix) || !isUnixSeconds(range.endTimeUnix)) return;
    if (range.startTimeUnix >= range.endTimeUnix) {
      issues.addIssue({ code: 'custom', path: ['startTimeUnix'], message: OBSERVABILITY_MESSAGES.startBeforeEnd });
    } else if (range.endTimeUnix - range.startTimeUnix > MAX_RANGE_DAYS * DAY_SECONDS) {
      issues.addIssue({ code: 'custom', path: ['endTimeUnix'], message: OBSERVABILITY_MESSAGES.maxRange });
    }
  });

export const DurationFilter = z.object({
  operator: z.enum(['gte', 'lte']),
  value: z.string().refine((value) => parseDuration(value) !== null, { message: OBSERVABILITY_MESSAGES.durationFormat }),
});

export const DateFilter = z.object({
  operator: z.enum(['gte', 'lte']),
  value: z.string().refine((value) => parseIsoDate(value) !== null, { message: OBSERVABILITY_MESSAGES.dateFormat }),
});

export const CountFilter = z.object({ operator: z.enum(['eq', 'gte', 'lte']), value: z.number().int().min(0) });

export type Comparison = 'eq' | 'gte' | 'lte';
export const SQL_COMPARISON: Record<Comparison, '=' | '>=' | '<='> = { eq: '=', gte: '>=', lte: '<=' };
