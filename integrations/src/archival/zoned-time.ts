/** Times as an agent sees them: in its own timezone, which the model was told in its system prompt. */

function formatterFor(timezone: string): Intl.DateTimeFormat {
  const options: Intl.DateTimeFormatOptions = {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  };
  try {
    return new Intl.DateTimeFormat('en-US', { ...options, timeZone: timezone });
  } catch {
    // An unknown stored timezone must not break a search; UTC is what the agent was shown then too.
    return new Intl.DateTimeFormat('en-US', { ...options, timeZone: 'UTC' });
  }
}

type WallTime = { year: number; month: number; day: number; hour: number; minute: number; second: number };

function wallTimeOf(instant: Date, timezone: string): WallTime {
  const parts = Object.fromEntries(formatterFor(timezone).formatToParts(instant).map((part) => [part.type, Number(part.value)]));
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute!, second: parts.second! };
}

const asUtcMs = (wall: WallTime) => Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);

/** How far the zone's clocks are ahead of UTC at this instant. */
function offsetMs(instant: Date, timezone: string): number {
  return asUtcMs(wallTimeOf(instant, timezone)) - Math.floor(instant.getTime() / 1000) * 1000;
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** `2025-01-02T10:04:05-05:00`: ISO 8601 with the zone's offset at that instant. */
export function isoInTimezone(instant: Date, timezone: string): string {
  const wall = wallTimeOf(instant, timezone);
  const minutes = Math.round(offsetMs(instant, timezone) / 60_000);
  const sign = minutes < 0 ? '-' : '+';
  const offset = `${sign}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`;
  return `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)}T${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}${offset}`;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/;

/** The instant a wall time in `timezone` names (the later reading, around a DST change, is as good as any). */
function instantOfWallTime(wall: WallTime, timezone: string): Date {
  const guess = asUtcMs(wall);
  const first = guess - offsetMs(new Date(guess), timezone);
  return new Date(guess - offsetMs(new Date(first), timezone));
}

/**
 * A search bound as the model or a client writes it: a date (`2025-03-01`: the whole day, so an end bound
 * means its last millisecond), a date and time without an offset (in the agent's timezone), or a full ISO
 * 8601 instant. Null when the text is none of these.
 */
export function parseSearchBound(text: string, timezone: string, bound: 'start' | 'end'): Date | null {
  const trimmed = text.trim();
  const date = DATE_ONLY.exec(trimmed);
  if (date) {
    const [year, month, day] = date.slice(1).map(Number) as [number, number, number];
    const startOfDay = instantOfWallTime({ year, month, day, hour: 0, minute: 0, second: 0 }, timezone);
    if (bound === 'start') return startOfDay;
    const nextDay = instantOfWallTime({ year, month, day: day + 1, hour: 0, minute: 0, second: 0 }, timezone);
    return new Date(nextDay.getTime() - 1);
  }
  const local = LOCAL_DATE_TIME.exec(trimmed);
  if (local) {
    const [year, month, day, hour, minute, second] = local.slice(1).map((part) => Number(part ?? 0)) as [number, number, number, number, number, number];
    return instantOfWallTime({ year, month, day, hour, minute, second }, timezone);
  }
  const instant = new Date(trimmed);
  return Number.isNaN(instant.getTime()) ? null : instant;
}
