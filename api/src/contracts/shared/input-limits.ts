import { z } from 'zod';

/**
 * What every route's input must be before anything reads it, decided in one place: PostgreSQL refuses a
 * NUL byte in text and jsonb, and jsonb (like any UTF-8 consumer) an unpaired UTF-16 surrogate, so such
 * input is refused at the door instead of surfacing as a database error. Engram refuses rather than strips:
 * silently changing what a user stored (a memory block, a message) would be worse than saying why not.
 */

export type InputIssue = { loc: Array<string | number>; msg: string; type: string };

/** Deeper than any wire shape nests (tool schemas and message content included); deeper JSON is an attack. */
export const MAX_JSON_DEPTH = 64;

/** Longer than any id, name or key a path carries. */
export const MAX_PATH_PARAM_LENGTH = 512;

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** `<prefix>-<uuid>`, the public API's id shape, whatever the resource (`agent-…`, `sandbox-env-…`, `mcp_server-…`). */
export const PREFIXED_ID = new RegExp(`^[a-z][a-z0-9_]*(?:-[a-z][a-z0-9_]*)*-${UUID}$`);

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why PostgreSQL could not store this text, or undefined when it can. */
export function unstorableTextReason(text: string): string | undefined {
  if (text.includes('\u0000')) return 'Text must not contain NUL (\\u0000) characters';
  if (LONE_SURROGATE.test(text)) return 'Text must not contain unpaired UTF-16 surrogates';
  return undefined;
}

/**
 * The first part of a parsed request (body or query) that cannot be stored: text with NUL or a lone
 * surrogate (in a value or a key), or nesting deeper than `MAX_JSON_DEPTH`. Walked without recursion, so
 * hostile nesting cannot exhaust the stack.
 */
export function findUnstorableInput(value: unknown, root: Array<string | number>): InputIssue | undefined {
  const pending: Array<{ value: unknown; loc: Array<string | number> }> = [{ value, loc: root }];
  while (pending.length > 0) {
    const { value: current, loc } = pending.pop()!;
    if (typeof current === 'string') {
      const reason = unstorableTextReason(current);
      if (reason) return { loc, msg: reason, type: 'string_unstorable' };
      continue;
    }
    if (typeof current !== 'object' || current === null || Buffer.isBuffer(current)) continue;
    if (loc.length - root.length >= MAX_JSON_DEPTH) {
      return { loc, msg: `Input is nested deeper than ${MAX_JSON_DEPTH} levels`, type: 'too_deep' };
    }
    const entries: Array<[string | number, unknown]> = Array.isArray(current) ? current.map((item, index) => [index, item]) : Object.entries(current);
    for (const [key, item] of entries) {
      if (typeof key === 'string') {
        const reason = unstorableTextReason(key);
        if (reason) return { loc: [...loc, key], msg: `Key: ${reason}`, type: 'string_unstorable' };
      }
      pending.push({ value: item, loc: [...loc, key] });
    }
  }
  return undefined;
}

/**
 * Whether a path parameter's value can name anything: storable text of a sane length and, for `<thing>_id`
 * parameters, the shape `shapeOf` knows for that parameter or else the public API's `<prefix>-<uuid>`.
 */
export function canNameAResource(param: string, value: string, shapeOf: (param: string) => ((value: string) => boolean) | undefined): boolean {
  if (value.length === 0 || value.length > MAX_PATH_PARAM_LENGTH || unstorableTextReason(value)) return false;
  const shape = shapeOf(param) ?? (param.endsWith('_id') ? (candidate: string) => PREFIXED_ID.test(candidate) : undefined);
  return shape ? shape(value) : true;
}

/** A list cursor: the id of an item of the same list. */
export const cursorId = z.string().regex(PREFIXED_ID, { error: 'Cursor must be the id of an item of this list (<prefix>-<uuid>)' });

/**
 * Where a name belongs in a body (names, titles, labels, and any `…_name`, `…Name`, `…_label`, `…Label`), summaries
 * and descriptions: each kind has a length limit that holds on every route, whatever its schema says. A route's schema
 * may be stricter (the spec's template names, 3 to 50; an agent file's summary, 200), and a route may allow more of
 * one field (`config.textLimits`).
 */
export const TEXT_LIMITS = { name: 200, summary: 10_000, description: 50_000 } as const;

const NAME_KEY = /^(name|title|label|[a-z0-9_]+_name|[a-z0-9_]+_label|[a-z][A-Za-z0-9]*Name|[a-z][A-Za-z0-9]*Label)$/;

/** Free-form JSON a client owns (metadata, tool and response schemas): its keys are not Engram's fields. */
const FREE_FORM_KEYS = new Set(['metadata', 'json_schema', 'args_json_schema', 'response_format']);

/** The length limit of a body field, by its name, or undefined for fields that are not names, summaries or descriptions. */
export function textLimitOf(key: string, overrides: Readonly<Record<string, number>> = {}): number | undefined {
  if (Object.hasOwn(overrides, key)) return overrides[key];
  if (key === 'description') return TEXT_LIMITS.description;
  if (key === 'summary') return TEXT_LIMITS.summary;
  return NAME_KEY.test(key) ? TEXT_LIMITS.name : undefined;
}

/** `agent_name` and `agentName` → "Agent name", as a message names the field. */
function fieldWords(key: string): string {
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/_/g, ' ').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The first name, summary or description of a body longer than its limit, anywhere in it but inside free-form
 * JSON. Walked without recursion, like `findUnstorableInput` (which runs first, so the depth is bounded).
 */
export function findOverlongText(value: unknown, root: Array<string | number>, overrides: Readonly<Record<string, number>> = {}): InputIssue | undefined {
  const pending: Array<{ value: unknown; loc: Array<string | number> }> = [{ value, loc: root }];
  while (pending.length > 0) {
    const { value: current, loc } = pending.pop()!;
    if (typeof current !== 'object' || current === null || Buffer.isBuffer(current)) continue;
    const entries: Array<[string | number, unknown]> = Array.isArray(current) ? current.map((item, index) => [index, item]) : Object.entries(current);
    for (const [key, item] of entries) {
      if (typeof key === 'string' && FREE_FORM_KEYS.has(key)) continue;
      const limit = typeof key === 'string' && typeof item === 'string' ? textLimitOf(key, overrides) : undefined;
      if (limit !== undefined && (item as string).length > limit) {
        return { loc: [...loc, key], msg: `${fieldWords(key as string)} must be at most ${limit} characters long`, type: 'string_too_long' };
      }
      pending.push({ value: item, loc: [...loc, key] });
    }
  }
  return undefined;
}
