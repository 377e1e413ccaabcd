import { useCallback, useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useV1, type SendMessagesBody, type V1Client, type WireMessage } from '@engram/console-kit';
import { agentKeys } from '../queries.js';
import { emptyTranscript, fromHistory, StreamReader, toolNameFor, type Transcript } from './transcript.js';

/**
 * The run a page is following, kept per tab so a reload resumes it (`POST /runs/{id}/stream`). Its
 * prompt needs no keeping: the server stores a run's input when it accepts the run, so history has it.
 */
type RunProgress = { runId: string; lastSeq: number };

const progressKey = (agentId: string) => `engram.ade.run.${agentId}`;

function readProgress(agentId: string): RunProgress | null {
  try {
    const value = JSON.parse(sessionStorage.getItem(progressKey(agentId)) ?? 'null') as RunProgress | null;
    return value && typeof value.runId === 'string' && typeof value.lastSeq === 'number' ? value : null;
  } catch {
    return null;
  }
}

const HISTORY_PAGE = 50;
/** Reconnections to a run's stream after the connection drops, with growing pauses (1 s, 2 s, 4 s). */
const RECONNECTS = 3;

export type ChatStatus = 'loading' | 'idle' | 'streaming' | 'resuming' | 'cancelling';

async function loadRecord(v1: V1Client, agentId: string, before?: string) {
  const [history, runs] = await Promise.all([
    v1.listMessages(agentId, { limit: HISTORY_PAGE, ...(before ? { before } : {}) }),
    v1.listRuns({ agent_id: agentId, limit: 50 }),
  ]);
  return { history, runs };
}

/**
 * The agent's chat: history, sending with token streaming, approvals, cancel, and resuming the
 * running turn after a reload without showing anything twice (see transcript.ts).
 */
export function useChat(agentId: string) {
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

  // Another agent (or another organization's client) starts over from an empty transcript, loading. Adjusted while
  // rendering, as React does for state that follows a prop, so one agent's messages never show under another's name;
  // the load effect below empties transcriptRef and fetches the history.
  const [shownFor, setShownFor] = useState({ agentId, v1 });
  if (shownFor.agentId !== agentId || shownFor.v1 !== v1) {
    setShownFor({ agentId, v1 });
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
    const { history, runs } = await loadRecord(v1, agentId);
    // Keep the earlier pages the user loaded: anything known that the newest page lacks is older.
    const newest = new Set(history.map((message) => `${message.id}:${message.message_type}`));
    const older = historyRef.current.filter((message) => !newest.has(`${message.id}:${message.message_type}`));
    historyRef.current = [...older, ...history];
    if (older.length === 0) setHasEarlier(history.length >= HISTORY_PAGE);
    setTranscript(fromHistory(transcriptRef.current, historyRef.current, runs));
  }, [v1, agentId, setTranscript]);

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
          sessionStorage.setItem(progressKey(agentId), JSON.stringify(runRef.current));
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
    [agentId, refreshLive, setTranscript],
  );

  const finishTurn = useCallback(async () => {
    runRef.current = null;
    abortRef.current = null;
    sessionStorage.removeItem(progressKey(agentId));
    refreshLive('all');
    // Idle only once the record is in: a message sent meanwhile would be lost by the rebuild.
    await reload().catch(() => undefined);
    setStatus('idle');
  }, [agentId, refreshLive, reload]);

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
    void (async () => {
      try {
        const { history, runs } = await loadRecord(v1, agentId);
        if (cancelled) return;
        historyRef.current = history;
        setHasEarlier(history.length >= HISTORY_PAGE);
        setTranscript(fromHistory(emptyTranscript, history, runs));
        // The run this tab followed (from where it got to), else any run of the agent still going.
        const active = runs.find((candidate) => candidate.status === 'created' || candidate.status === 'running');
        const saved = readProgress(agentId);
        const progress = active ? (saved?.runId === active.id ? saved : { runId: active.id, lastSeq: 0 }) : null;
        if (!progress) {
          sessionStorage.removeItem(progressKey(agentId));
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
  }, [v1, agentId, run, setTranscript]);

  const send = useCallback(
    async (body: SendMessagesBody) => {
      const reader = new StreamReader();
      await run((signal) => v1.streamMessages(agentId, { ...body, stream_tokens: true, include_pings: true }, signal), reader, 'streaming');
    },
    [v1, agentId, run],
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
      await v1.cancelRuns(agentId, current ? [current.runId] : undefined);
    } catch (caught) {
      setError(caught);
    }
    // If the stream does not end by itself soon, stop reading it.
    const aborter = abortRef.current;
    setTimeout(() => aborter?.abort(), 5000);
  }, [v1, agentId]);

  const loadEarlier = useCallback(async () => {
    const first = historyRef.current[0];
    if (!first) return;
    const { history, runs } = await loadRecord(v1, agentId, first.id);
    historyRef.current = [...history, ...historyRef.current];
    setHasEarlier(history.length >= HISTORY_PAGE);
    setTranscript(fromHistory(transcriptRef.current, historyRef.current, runs));
  }, [v1, agentId, setTranscript]);

  return { transcript, status, error, hasEarlier, sendText, answerApproval, cancel, loadEarlier, dismissError: () => setError(null) };
}
