import type { QueryBuilder, Model } from 'objection';

export type SortOrder = 'asc' | 'desc';

/** A page of a list: `before`/`after` are ids of items of the same list, as the public API's cursors are. */
export type PageRequest = { before?: string | undefined; after?: string | undefined; limit: number; order: SortOrder };

export type KeysetOptions = {
  table: string;
  /** The sort key as SQL over a table alias; the row id breaks ties. Defaults to `created_at`. */
  sortKey?: (alias: string) => string;
};

const byCreatedAt = (alias: string) => `${alias}.created_at`;

/**
 * One page of `query` in (sort key, id) order. The cursor row is read inside the same SQL statement rather
 * than carried through JavaScript, because PostgreSQL timestamps have microseconds that a JS Date drops.
 * A cursor id that is not in the table matches nothing, so the page is empty.
 */
export async function keysetPage<M extends Model>(query: QueryBuilder<M, M[]>, page: PageRequest, options: KeysetOptions): Promise<M[]> {
  const { table } = options;
  const sortKey = options.sortKey ?? byCreatedAt;
  const cursor = `(select ${sortKey('cursor_row')}, cursor_row.id from ${table} as cursor_row where cursor_row.id = ?)`;
  const row = `(${sortKey(table)}, ${table}.id)`;
  const laterInOrder = page.order === 'desc' ? '<' : '>';
  const earlierInOrder = page.order === 'desc' ? '>' : '<';
  if (page.after) query.whereRaw(`${row} ${laterInOrder} ${cursor}`, [page.after]);
  if (page.before) query.whereRaw(`${row} ${earlierInOrder} ${cursor}`, [page.before]);

  // With only `before`, the page is the `limit` items just before the cursor, so read backwards from it.
  const backwards = page.before !== undefined && page.after === undefined;
  const direction = (page.order === 'desc') !== backwards ? 'desc' : 'asc';
  const rows = await query
    .orderByRaw(`${sortKey(table)} ${direction}, ${table}.id ${direction}`)
    .limit(page.limit);
  return backwards ? rows.reverse() : rows;
}

/** The same paging over a list already in memory, in ascending order (an agent's blocks or tools). */
export function pageInMemory<T extends { id: string }>(ascending: T[], page: PageRequest): T[] {
  const ordered = page.order === 'desc' ? [...ascending].reverse() : ascending;
  const indexOf = (id: string | undefined) => (id === undefined ? -1 : ordered.findIndex((item) => item.id === id));
  const start = page.after === undefined ? 0 : indexOf(page.after) + 1;
  const end = page.before === undefined ? ordered.length : indexOf(page.before);
  if ((page.after !== undefined && start === 0) || end < 0) return [];
  const window = ordered.slice(start, end);
  return page.before !== undefined && page.after === undefined ? window.slice(-page.limit) : window.slice(0, page.limit);
}
