import { useCallback, useState } from 'react';

/**
 * Panel sizes live in one cookie (spec 000 §2: "a layout preference is kept in a cookie as panel
 * size numbers"): `engram_layout={"ade":[62,38]}`, percentages per layout id, for a year, site-wide.
 */
export const LAYOUT_COOKIE = 'engram_layout';

export function parseLayoutCookie(cookieHeader: string): Record<string, number[]> {
  const raw = cookieHeader
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${LAYOUT_COOKIE}=`));
  if (!raw) return {};
  try {
    const parsed = JSON.parse(decodeURIComponent(raw.slice(LAYOUT_COOKIE.length + 1))) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    const layouts: Record<string, number[]> = {};
    for (const [id, sizes] of Object.entries(parsed as Record<string, unknown>)) {
      if (Array.isArray(sizes) && sizes.every((size) => typeof size === 'number' && Number.isFinite(size))) layouts[id] = sizes as number[];
    }
    return layouts;
  } catch {
    return {};
  }
}

export function layoutCookieValue(layouts: Record<string, number[]>): string {
  return `${LAYOUT_COOKIE}=${encodeURIComponent(JSON.stringify(layouts))}; Path=/; Max-Age=31536000; SameSite=Lax`;
}

/** Sizes (percentages) of the panels of one layout, kept in the layout cookie. */
export function usePanelSizes(id: string, defaults: number[]): [number[], (sizes: number[]) => void] {
  const [sizes, setSizes] = useState<number[]>(() => {
    const saved = parseLayoutCookie(document.cookie)[id];
    return saved && saved.length === defaults.length ? saved : defaults;
  });
  const save = useCallback(
    (next: number[]) => {
      const rounded = next.map((size) => Math.round(size * 10) / 10);
      setSizes(rounded);
      document.cookie = layoutCookieValue({ ...parseLayoutCookie(document.cookie), [id]: rounded });
    },
    [id],
  );
  return [sizes, save];
}
