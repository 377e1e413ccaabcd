import { useMemo } from 'react';
import { useSessionState } from '../session/session-context.js';

/** Dates and numbers in the user's `locale` (the browser's before sign-in). */
export function createFormatters(locale: string | undefined) {
  const safeLocale = (() => {
    try {
      return locale ? Intl.getCanonicalLocales(locale)[0] : undefined;
    } catch {
      return undefined;
    }
  })();
  const dateTime = new Intl.DateTimeFormat(safeLocale, { dateStyle: 'medium', timeStyle: 'short' });
  const number = new Intl.NumberFormat(safeLocale);
  const relativeLong = new Intl.RelativeTimeFormat(safeLocale, { numeric: 'auto' });
  const relativeNarrow = new Intl.RelativeTimeFormat(safeLocale, { numeric: 'auto', style: 'narrow' });
  return {
    locale: safeLocale,
    dateTime: (iso: string | null | undefined) => (iso ? dateTime.format(new Date(iso)) : '—'),
    number: (value: number | null | undefined) => (value === null || value === undefined ? '—' : number.format(value)),
    /** "3 seconds ago"; `narrow` gives "3s ago" for tight columns. */
    relative(iso: string | null | undefined, style: 'long' | 'narrow' = 'long'): string {
      const relative = style === 'narrow' ? relativeNarrow : relativeLong;
      if (!iso) return '—';
      const seconds = Math.round((new Date(iso).getTime() - Date.now()) / 1000);
      const steps: Array<[Intl.RelativeTimeFormatUnit, number]> = [
        ['second', 60],
        ['minute', 60],
        ['hour', 24],
        ['day', 30],
        ['month', 12],
        ['year', Number.POSITIVE_INFINITY],
      ];
      let value = seconds;
      for (const [unit, size] of steps) {
        if (Math.abs(value) < size) return relative.format(value, unit);
        value = Math.round(value / size);
      }
      return dateTime.format(new Date(iso));
    },
    durationNs(ns: number | null | undefined): string {
      if (ns === null || ns === undefined) return '—';
      const ms = ns / 1e6;
      return ms < 1000 ? `${number.format(Math.round(ms))} ms` : `${new Intl.NumberFormat(safeLocale, { maximumFractionDigits: 1 }).format(ms / 1000)} s`;
    },
  };
}

export type Formatters = ReturnType<typeof createFormatters>;

export function useFormatters(): Formatters {
  const state = useSessionState();
  const locale = state.status === 'signed-in' ? state.session.user.locale : undefined;
  return useMemo(() => createFormatters(locale), [locale]);
}
