import { z } from 'zod';
import { cursorId } from './input-limits.js';

/** The public API's list paging: cursors are item ids of the same list. */
export function pageQuery(defaultLimit: number) {
  return {
    before: cursorId.optional(),
    after: cursorId.optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(defaultLimit),
    order: z.enum(['asc', 'desc']).optional(),
  };
}

/** What a service pages by, from a `pageQuery`: the list's own order unless the caller chose one. */
export function pageOf(query: { before?: string | undefined; after?: string | undefined; limit: number; order?: 'asc' | 'desc' | undefined }, defaultOrder: 'asc' | 'desc') {
  return { before: query.before, after: query.after, limit: query.limit, order: query.order ?? defaultOrder };
}
