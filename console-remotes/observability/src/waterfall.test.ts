import { describe, expect, it } from 'vitest';
import { categoryOf, waterfallRows, type SpanTiming } from './waterfall.js';

type Span = SpanTiming & { name: string };

/** A span starting `startMs` after 2026-11-27T00:00:00Z, in the nanosecond strings the API sends. */
const span = (name: string, spanId: string, parent: string | null, startMs: number): Span => ({
  name,
  span_id: spanId,
  parent_span_id: parent,
  start_unix_nano: String(1_795_737_600_000_000_000n + BigInt(Math.round(startMs * 1e6))),
});

describe('the waterfall of a trace', () => {
  it('puts each span under its parent, siblings by start, offsets from the first span', () => {
    const spans = [
      span('execute_tool memory_insert', 'tool', 'step-1', 40.5),
      span('agent_step', 'step-2', 'run', 60),
      span('chat gpt-4o-mini', 'chat-1', 'step-1', 12),
      span('invoke_agent', 'run', 'request', 5),
      span('POST /v1/agents/:agent_id/messages', 'request', null, 0),
      span('agent_step', 'step-1', 'run', 10),
    ];
    expect(waterfallRows(spans).map((row) => [row.span.span_id, row.depth, row.offsetMs])).toEqual([
      ['request', 0, 0],
      ['run', 1, 5],
      ['step-1', 2, 10],
      ['chat-1', 3, 12],
      ['tool', 3, 40.5],
      ['step-2', 2, 60],
    ]);
  });

  it('makes a span whose parent is not in the trace a root, and keeps spans that start together in id order', () => {
    const spans = [span('b', 'b', 'elsewhere', 3), span('a2', 'a2', null, 3), span('a1', 'a1', null, 3)];
    expect(waterfallRows(spans).map((row) => [row.span.span_id, row.depth, row.offsetMs])).toEqual([
      ['a1', 0, 0],
      ['a2', 0, 0],
      ['b', 0, 0],
    ]);
    expect(waterfallRows([])).toEqual([]);
  });

  it('leaves out the spans it is told to hide, their children taking their place', () => {
    const spans = [
      span('POST /v1/agents/:agent_id/messages', 'request', null, 0),
      span('RunWorkflow:agentRunWorkflow', 'workflow', 'request', 2),
      span('invoke_agent', 'run', 'workflow', 5),
      span('agent_step', 'step-1', 'run', 10),
      span('RunActivity:callModel', 'activity', 'step-1', 11),
      span('chat gpt-4o-mini', 'chat-1', 'activity', 12),
      span('RunActivity:applyModelTurn', 'apply', 'step-1', 30),
      span('execute_tool memory_insert', 'tool', 'apply', 31),
    ];
    const agentOnly = waterfallRows(spans, (candidate) => categoryOf(candidate) !== 'other');
    expect(agentOnly.map((row) => [row.span.span_id, row.depth, row.offsetMs])).toEqual([
      ['run', 0, 5],
      ['step-1', 1, 10],
      ['chat-1', 2, 12],
      ['tool', 2, 31],
    ]);
  });

  it('names what a span is by its operation', () => {
    expect(['invoke_agent', 'agent_step', 'chat gpt-4o-mini', 'execute_tool web_search', 'RunActivity:callModel'].map((name) => categoryOf({ name }))).toEqual([
      'run',
      'step',
      'model',
      'tool',
      'other',
    ]);
  });
});
