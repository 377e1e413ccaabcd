import { describe, expect, it } from 'vitest';
import { canNameAResource, cursorId, findOverlongText, findUnstorableInput, MAX_JSON_DEPTH, TEXT_LIMITS, textLimitOf, unstorableTextReason } from './input-limits.js';

const AGENT_ID = 'agent-3f2b8a4e-9c1d-4e5f-8a7b-1c2d3e4f5a6b';
const noKnownShape = () => undefined;

describe('unstorableTextReason', () => {
  it('accepts text PostgreSQL stores, paired surrogates (emoji) included', () => {
    expect(unstorableTextReason('héllo 👋 world')).toBeUndefined();
  });

  it('names NUL and unpaired surrogates, high or low', () => {
    expect(unstorableTextReason('a\u0000b')).toMatch(/NUL/);
    expect(unstorableTextReason('a\ud800b')).toMatch(/surrogate/);
    expect(unstorableTextReason('\udc00')).toMatch(/surrogate/);
    expect(unstorableTextReason('end\ud83d')).toMatch(/surrogate/);
  });
});

describe('findUnstorableInput', () => {
  it('names the field that holds the bad text, in values and in keys', () => {
    expect(findUnstorableInput({ messages: [{ content: 'ok' }, { content: 'x\u0000' }] }, ['body'])?.loc).toEqual(['body', 'messages', 1, 'content']);
    expect(findUnstorableInput({ metadata: { 'k\ud800': 1 } }, ['body'])?.loc).toEqual(['body', 'metadata', 'k\ud800']);
    expect(findUnstorableInput({ name: 'fine', tags: ['a', 'b'] }, ['query'])).toBeUndefined();
  });

  it('refuses nesting deeper than the limit without recursing', () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < 100_000; level++) deep = [deep];
    expect(findUnstorableInput(deep, ['body'])?.type).toBe('too_deep');
    let allowed: unknown = 'leaf';
    for (let level = 0; level < MAX_JSON_DEPTH - 1; level++) allowed = { a: allowed };
    expect(findUnstorableInput(allowed, ['body'])).toBeUndefined();
  });

  it('leaves uploaded bytes alone', () => {
    expect(findUnstorableInput({ file: { data: Buffer.from([0, 0xd8, 0]) } }, ['body'])).toBeUndefined();
  });
});

describe('canNameAResource', () => {
  it('takes `<prefix>-<uuid>` for any `_id` parameter and refuses other shapes', () => {
    expect(canNameAResource('mcp_server_id', 'mcp_server-3f2b8a4e-9c1d-4e5f-8a7b-1c2d3e4f5a6b', noKnownShape)).toBe(true);
    expect(canNameAResource('agent_id', '3f2b8a4e-9c1d-4e5f-8a7b-1c2d3e4f5a6b', noKnownShape)).toBe(false);
    expect(canNameAResource('agent_id', 'agent-garbage', noKnownShape)).toBe(false);
  });

  it('uses the shape known for a parameter over the generic one', () => {
    const agentsOnly = (param: string) => (param === 'agent_id' ? (value: string) => value === AGENT_ID : undefined);
    expect(canNameAResource('agent_id', AGENT_ID, agentsOnly)).toBe(true);
    expect(canNameAResource('agent_id', 'block-3f2b8a4e-9c1d-4e5f-8a7b-1c2d3e4f5a6b', agentsOnly)).toBe(false);
  });

  it('takes any storable name for other parameters, but never NUL, a lone surrogate or an endless value', () => {
    expect(canNameAResource('tool_name', 'send_message', noKnownShape)).toBe(true);
    expect(canNameAResource('tool_name', 'send\u0000', noKnownShape)).toBe(false);
    expect(canNameAResource('tool_name', '\udfff', noKnownShape)).toBe(false);
    expect(canNameAResource('tool_name', 'x'.repeat(10_000), noKnownShape)).toBe(false);
  });
});

describe('cursorId', () => {
  it('takes item ids and refuses anything else', () => {
    expect(cursorId.safeParse(AGENT_ID).success).toBe(true);
    expect(cursorId.safeParse('\u0000garbage').success).toBe(false);
    expect(cursorId.safeParse('run-7').success).toBe(false);
  });
});

describe('findOverlongText', () => {
  it('limits names, titles and labels of any spelling, summaries and descriptions, and nothing else', () => {
    for (const key of ['name', 'title', 'label', 'agent_name', 'templateName', 'block_label', 'fieldLabel']) expect(textLimitOf(key)).toBe(TEXT_LIMITS.name);
    expect(textLimitOf('summary')).toBe(TEXT_LIMITS.summary);
    expect(textLimitOf('description')).toBe(TEXT_LIMITS.description);
    for (const key of ['value', 'content', 'system', 'names', 'nameless']) expect(textLimitOf(key)).toBeUndefined();
    expect(textLimitOf('description', { description: 100 })).toBe(100);
  });

  it('names the first field past its limit, nested ones included, and leaves free-form JSON alone', () => {
    const long = 'n'.repeat(TEXT_LIMITS.name + 1);
    expect(findOverlongText({ name: 'x'.repeat(TEXT_LIMITS.name), value: 'v'.repeat(100_000) }, ['body'])).toBeUndefined();
    expect(findOverlongText({ name: long }, ['body'])).toEqual({ loc: ['body', 'name'], msg: `Name must be at most ${TEXT_LIMITS.name} characters long`, type: 'string_too_long' });
    expect(findOverlongText({ memory_blocks: [{ label: 'ok' }, { label: long }] }, ['body'])?.loc).toEqual(['body', 'memory_blocks', 1, 'label']);
    expect(findOverlongText({ agentName: long }, ['body'])?.msg).toBe(`Agent name must be at most ${TEXT_LIMITS.name} characters long`);
    expect(findOverlongText({ metadata: { name: long }, json_schema: { description: 'd'.repeat(TEXT_LIMITS.description + 1) } }, ['body'])).toBeUndefined();
    expect(findOverlongText({ description: 'd'.repeat(101) }, ['body'], { description: 100 })?.loc).toEqual(['body', 'description']);
  });
});
