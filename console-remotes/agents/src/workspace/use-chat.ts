import { useCallback, useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useV1, type SendMessagesBody, type V1Client, type WireMessage } from '@engram/console-kit';
import { agentKeys } from '../queries.js';
import { cancelConversation, listConversationMessages, listConversationRuns, streamConversationMessages } from './conversations-api.js';
import { emptyTranscript, fromHistory, StreamReader, toolNameFor, type Transcript } from './transcript.js';

/**
 * The run a page is following, kept per tab so a reload resumes it (`POST /runs/{id}/stream`). Its
 * prompt needs no keeping: the server stores a run's input when it accepts the run, so history has it.
 */
type RunProgress = { runId: string; lastSeq: number };

/** A conversation of an agent: null is the agent's own history (its default conversation). */
type ChatTarget = { agentId: string; conversationId: string | null };

const progressKey = ({ agentId, conversationId }: ChatTarget) => `engram.ade.run.${agentId}${conversationId ? `.${conversationId}` : ''}`;

function readProgress(target: ChatTarget): RunProgress | null {
  try {
    const value = JSON.parse(sessionStorage.getItem(progressKey(target)) ?? 'null') as RunProgress | null;
    return value && typeof value.runId === 'string' && typeof value.lastSeq === 'number' ? value : null;
  } catch {
    return null;
  }
}

const HISTORY_PAGE = 50;
/** Reconnections to a run's stream after the connection drops, with growing pauses (1 s, 2 s, 4 s). */
const RECONNECTS = 3;

export type ChatStatus = 'loading' | 'idle' | 'streaming' | 'resuming' | 'cancelling';

const RUNS_SHOWN = 50;

/** A page of the conversation's history, and its latest runs (the agent's other conversations' runs left out). */
async function loadRecord(v1: V1Client, { agentId, conversationId }: ChatTarget, before?: string) {
  const page = { limit: HISTORY_PAGE, ...(before ? { before } : {}) };
  const [history, runs] = await Promise.all([
    conversationId ? listConversationMessages(conversationId, page) : v1.listMessages(agentId, page),
    conversationId ? listConversationRuns(agentId, conversationId, RUNS_SHOWN) : v1.listRuns({ agent_id: agentId, limit: RUNS_SHOWN }),
  ]);
  return { history, runs: runs.filter((run) => (run.conversation_id ?? null) === conversationId) };
}

/**
 * The chat of one of the agent's conversations (`conversationId` null: its own history): history, sending with token
 * streaming, approvals, cancel, and resuming the running turn after a reload without showing anything twice (see
 * transcript.ts).
 */
export function useChat(agentId: string, conversationId: string | null) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const [transcript, setTranscriptState] = useState<Transcript>(emptyTranscript);
  const [status, setStatus] = useState<ChatStatus>('loading');
  const [error, setError] = useState<unknown>(null);
  const [hasEarlier, setHasEarlier] = useState(false);
  // The transcript lives in a ref too: stream frames arrive faster than renders.
  const transcriptRef = useRef<Transcript>(emptyTranscript);
  const runRef = useRef<RunProgress | null>(null);
  const abortRef = useRef<AbortController | null>(null);
  const historyRef = useRef<WireMessage[]>([]);
  // Bumped when the screen is left (or the agent changes): a stream of an older generation is dropped quietly.
  const generationRef = useRef(0);

  const setTranscript = useCallback((next: Transcript) => {
    transcriptRef.current = next;
    setTranscriptState(next);
  }, []);

  // Another agent or conversation (or another organization's client) starts over from an empty transcript, loading.
  // Adjusted while rendering, as React does for state that follows a prop, so one conversation's messages never show
  // under another's name; the load effect below empties transcriptRef and fetches the history.
  const [shownFor, setShownFor] = useState({ agentId, conversationId, v1 });
  if (shownFor.agentId !== agentId || shownFor.conversationId !== conversationId || shownFor.v1 !== v1) {
    setShownFor({ agentId, conversationId, v1 });
    setStatus('loading');
    setTranscriptState(emptyTranscript);
  }

  const refreshLive = useCallback(
    (what: 'memory' | 'all') => {
      if (what === 'memory') {
        void queryClient.invalidateQueries({ queryKey: agentKeys.blocks(v1, agentId) });
        void queryClient.invalidateQueries({ queryKey: agentKeys.context(v1, agentId) });
      } else {
        void queryClient.invalidateQueries({ queryKey: agentKeys.live(v1, agentId) });
        void queryClient.invalidateQueries({ queryKey: agentKeys.agent(v1, agentId), exact: true });
      }
    },
    [queryClient, v1, agentId],
  );

  /** Replaces the transcript with the server's record (the authoritative text of streamed messages). */
  const reload = useCallback(async () => {
    const { history, runs } = await loadRecord(v1, { agentId, conversationId });
    // Keep the earlier pages the user loaded: anything known that the newest page lacks is older.
    const newest = new Set(history.map((message) => `${message.id}:${message.message_type}`));
    const older = historyRef.current.filter((message) => !newest.has(`${message.id}:${message.message_type}`));
    historyRef.current = [...older, ...history];
    if (older.length === 0) setHasEarlier(history.length >= HISTORY_PAGE);
    setTranscript(fromHistory(transcriptRef.current, historyRef.current, runs));
  }, [v1, agentId, conversationId, setTranscript]);

  /** Reads one stream to its end; returns whether the run finished (a stop reason arrived). */
  const follow = useCallback(
    async (frames: AsyncGenerator<WireMessage>, reader: StreamReader): Promise<boolean> => {
      let finished = false;
      const generation = generationRef.current;
      for await (const frame of frames) {
        if (generation !== generationRef.current) break;
        setTranscript(reader.apply(transcriptRef.current, frame));
        if (reader.runId) {
          runRef.current = { runId: reader.runId, lastSeq: reader.lastSeq };
          sessionStorage.setItem(progressKey({ agentId, conversationId }), JSON.stringify(runRef.current));
        }
        if (frame.message_type === 'tool_return_message') {
          // A memory tool changed a block: the panel shows the new value and size at once.
          const tool = toolNameFor(transcriptRef.current, frame.tool_call_id) ?? String(frame.name ?? '');
          if (!tool || tool.includes('memory')) refreshLive('memory');
        }
        if (frame.message_type === 'stop_reason') finished = true;
      }
      return finished;
    },
    [agentId, conversationId, refreshLive, setTranscript],
  );

  const finishTurn = useCallback(async () => {
    runRef.current = null;
    abortRef.current = null;
    sessionStorage.removeItem(progressKey({ agentId, conversationId }));
    refreshLive('all');
    // Idle only once the record is in: a message sent meanwhile would be lost by the rebuild.
    await reload().catch(() => undefined);
    setStatus('idle');
  }, [agentId, conversationId, refreshLive, reload]);

  const run = useCallback(
    async (start: (signal: AbortSignal) => AsyncGenerator<WireMessage>, reader: StreamReader, mode: 'streaming' | 'resuming') => {
      const generation = generationRef.current;
      const aborter = new AbortController();
      abortRef.current = aborter;
      setStatus(mode);
      setError(null);
      let finished = false;
      let failure: unknown = null;
      try {
        finished = await follow(start(aborter.signal), reader);
      } catch (caught) {
        failure = caught;
      }
      // The connection dropped before the run ended (a network blip, a restarting API, the page
      // unloading): the progress stays saved, and the stream is picked up where it got to.
      for (let attempt = 1; !finished && !aborter.signal.aborted && runRef.current && attempt <= RECONNECTS; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** attempt));
        if (generation !== generationRef.current || aborter.signal.aborted) break;
        const progress = runRef.current;
        try {
          failure = null;
          finished = await follow(v1.resumeRun(progress.runId, reader.lastSeq, aborter.signal), reader);
        } catch (caught) {
          failure = caught;
        }
      }
      if (generation !== generationRef.current) return;
      if (failure && !aborter.signal.aborted) setError(failure);
      await finishTurn();
    },
    [follow, finishTurn, v1],
  );

  // History first; then, if this tab was following a run (or the agent has one running), resume it.
  useEffect(() => {
    let cancelled = false;
    transcriptRef.current = emptyTranscript;
    // A run followed in the conversation shown before is no longer this chat's to cancel.
    runRef.current = null;
    void (async () => {
      try {
        const { history, runs } = await loadRecord(v1, { agentId, conversationId });
        if (cancelled) return;
        historyRef.current = history;
        setHasEarlier(history.length >= HISTORY_PAGE);
        setTranscript(fromHistory(emptyTranscript, history, runs));
        // The run this tab followed (from where it got to), else any run of the conversation still going.
        const active = runs.find((candidate) => candidate.status === 'created' || candidate.status === 'running');
        const saved = readProgress({ agentId, conversationId });
        const progress = active ? (saved?.runId === active.id ? saved : { runId: active.id, lastSeq: 0 }) : null;
        if (!progress) {
          sessionStorage.removeItem(progressKey({ agentId, conversationId }));
          setStatus('idle');
          return;
        }
        runRef.current = progress;
        const reader = new StreamReader(progress.lastSeq);
        reader.runId = progress.runId;
        await run((signal) => v1.resumeRun(progress.runId, progress.lastSeq, signal), reader, 'resuming');
      } catch (caught) {
        if (!cancelled) {
          setError(caught);
          setStatus('idle');
        }
      }
    })();
    return () => {
      cancelled = true;
      generationRef.current += 1;
      abortRef.current?.abort();
    };
  }, [v1, agentId, conversationId, run, setTranscript]);

  const send = useCallback(
    async (body: SendMessagesBody) => {
      const reader = new StreamReader();
      const streamed = { ...body, stream_tokens: true, include_pings: true };
      await run(
        (signal) => (conversationId ? streamConversationMessages(conversationId, streamed, signal) : v1.streamMessages(agentId, streamed, signal)),
        reader,
        'streaming',
      );
    },
    [v1, agentId, conversationId, run],
  );

  const sendText = useCallback(
    async (text: string) => {
      const otid = crypto.randomUUID();
      // Shown at once; the server's copy (same otid) takes its place.
      const optimistic: WireMessage = { id: `local-${otid}`, otid, message_type: 'user_message', content: text, date: new Date().toISOString() };
      setTranscript({ entries: [...transcriptRef.current.entries, { kind: 'message', key: `user:${otid}`, message: optimistic }] });
      await send({ messages: [{ role: 'user', content: text, otid }] });
    },
    [send, setTranscript],
  );

  const answerApproval = useCallback(
    (toolCallId: string, approve: boolean, reason?: string) =>
      send({ messages: [{ type: 'approval', approvals: [{ type: 'approval', tool_call_id: toolCallId, approve, reason: reason || null }] }] }),
    [send],
  );

  /** Cancels the running turn; the stream ends with the `cancelled` stop reason. */
  const cancel = useCallback(async () => {
    const current = runRef.current;
    setStatus('cancelling');
    try {
      if (current) await v1.cancelRuns(agentId, [current.runId]);
      else await cancelConversation(agentId, conversationId);
    } catch (caught) {
      setError(caught);
    }
    // If the stream does not end by itself soon, stop reading it.
    const aborter = abortRef.current;
    setTimeout(() => aborter?.abort(), 5000);
  }, [v1, agentId, conversationId]);

  const loadEarlier = useCallback(async () => {
    const first = historyRef.current[0];
    if (!first) return;
    const { history, runs } = await loadRecord(v1, { agentId, conversationId }, first.id);
    historyRef.current = [...history, ...historyRef.current];
    setHasEarlier(history.length >= HISTORY_PAGE);
    setTranscript(fromHistory(transcriptRef.current, historyRef.current, runs));
  }, [v1, agentId, conversationId, setTranscript]);

  return { transcript, status, error, hasEarlier, sendText, answerApproval, cancel, loadEarlier, dismissError: () => setError(null) };
}
