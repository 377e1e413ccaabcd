import { useCallback, useEffect, useState } from 'react';
import { Pager } from '@engram/console-kit';

/** Keyset paging: the `after` cursor of every page opened so far, the first page's being null. */
export function useCursorPages() {
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const next = useCallback((cursor: string) => setCursors((opened) => [...opened, cursor]), []);
  const previous = useCallback(() => setCursors((opened) => (opened.length > 1 ? opened.slice(0, -1) : opened)), []);
  return { after: cursors.at(-1) ?? null, index: cursors.length - 1, next, previous };
}

export type CursorPages = ReturnType<typeof useCursorPages>;

/**
 * Previous / next under a keyset-paged list. `settled`: the page shown is the one asked for (not the previous
 * one kept while it loads), so an empty later page really is empty and paging goes back one.
 */
export function CursorPager({ pages, pageSize, shown, nextCursor, settled }: { pages: CursorPages; pageSize: number; shown: number; nextCursor: string | null; settled: boolean }) {
  const emptied = settled && shown === 0 && pages.index > 0;
  const { previous } = pages;
  // Deleting or detaching the last items of a later page leaves nothing to show there.
  useEffect(() => {
    if (emptied) previous();
  }, [emptied, previous]);
  return (
    <Pager
      offset={pages.index * pageSize}
      limit={pageSize}
      hasNextPage={nextCursor !== null}
      onChange={(offset) => (offset > pages.index * pageSize && nextCursor ? pages.next(nextCursor) : pages.previous())}
    />
  );
}
