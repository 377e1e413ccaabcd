import { UnprocessableError } from '../../errors.js';

/** A block value over its character limit, for whichever request carried it (`loc`). */
export function blockLimitError(loc: Array<string | number>, valueLength: number, limit: number): UnprocessableError {
  return new UnprocessableError(loc, `Value is ${valueLength} characters long, over the block's limit of ${limit} characters`);
}
