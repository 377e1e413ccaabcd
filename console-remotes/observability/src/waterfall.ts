/** What a span is, from its name (the GenAI conventions' operations, core/src/trace-attributes.ts). */
export type SpanCategory = 'run' | 'step' | 'model' | 'tool' | 'other';

export function categoryOf(span: { name: string }): SpanCategory {
  const operation = span.name.split(' ')[0];
  if (operation === 'invoke_agent') return 'run';
  if (operation === 'agent_step') return 'step';
  if (operation === 'chat') return 'model';
  if (operation === 'execute_tool') return 'tool';
  return 'other';
}

/** What placing a span needs (a `TraceSpan` of the API has it all). */
export type SpanTiming = { span_id: string; parent_span_id: string | null; start_unix_nano: string };

export type WaterfallRow<Span extends SpanTiming> = { span: Span; depth: number; offsetMs: number };

/** Earlier start first; spans that start together keep a stable order by id. */
function byStart(a: SpanTiming, b: SpanTiming): number {
  const difference = BigInt(a.start_unix_nano) - BigInt(b.start_unix_nano);
  if (difference !== 0n) return difference < 0n ? -1 : 1;
  return a.span_id < b.span_id ? -1 : a.span_id > b.span_id ? 1 : 0;
}

/**
 * The spans in tree order (each parent before its children, siblings by start), with their depth and their start
 * from the trace's first span, in milliseconds. A span whose parent is not in the trace (a caller's outside
 * Engram, or one not stored) is a root. Spans `shown` refuses are left out and their children take their place
 * (the agent's own spans without the HTTP and Temporal ones between them). Start times are nanosecond strings:
 * BigInt keeps them exact.
 */
export function waterfallRows<Span extends SpanTiming>(spans: Span[], shown: (span: Span) => boolean = () => true): Array<WaterfallRow<Span>> {
  const first = [...spans].sort(byStart)[0];
  if (!first) return [];
  const origin = BigInt(first.start_unix_nano);
  const ids = new Set(spans.map((span) => span.span_id));
  const children = new Map<string | null, Span[]>();
  for (const span of spans) {
    const parent = span.parent_span_id !== null && ids.has(span.parent_span_id) ? span.parent_span_id : null;
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  /** The nearest shown descendants of a span (its children, or theirs in place of a hidden one). */
  const shownChildren = (parent: string | null): Span[] =>
    (children.get(parent) ?? []).flatMap((span) => (shown(span) ? [span] : shownChildren(span.span_id)));
  const rows: Array<WaterfallRow<Span>> = [];
  const visit = (parent: string | null, depth: number) => {
    for (const span of shownChildren(parent).sort(byStart)) {
      rows.push({ span, depth, offsetMs: Number(BigInt(span.start_unix_nano) - origin) / 1e6 });
      visit(span.span_id, depth + 1);
    }
  };
  visit(null, 0);
  return rows;
}
