import { z } from 'zod';

/** `?tags=a&tags=b` arrives as an array, a single `?tags=a` as a string: both become a list. */
export function queryList<T extends z.ZodType>(item: T) {
  return z.preprocess((value) => (value === undefined || Array.isArray(value) ? value : [value]), z.array(item)).optional();
}

/** A query flag as a boolean: `true`/`false` and the other spellings `z.stringbool()` knows (`1`, `yes`, `on`, …). */
export const queryBoolean = z.stringbool();
