import { z } from 'zod';

/** `?tags=a&tags=b` arrives as an array, a single `?tags=a` as a string: both become a list. */
export function queryList<T extends z.ZodType>(item: T) {
  return z.preprocess((value) => (value === undefined || Array.isArray(value) ? value : [value]), z.array(item)).optional();
}

/** A query flag as a boolean: `true`/`false` and the other spellings `z.stringbool()` knows (`1`, `yes`, `on`, …). */
export const queryBoolean = z.stringbool();

/** ISO datetimes; one without an offset (as Python's `isoformat()` writes them) is read as UTC. */
export const QueryDate = z.iso
  .datetime({ offset: true, local: true })
  .transform((value) => new Date(/(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? value : `${value}Z`));
