import { useEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import {
  ActionIcon,
  Box,
  Button,
  Center,
  ErrorNotice,
  Group,
  Loader,
  ScrollArea,
  Stack,
  Text,
  ThemeIcon,
  Tooltip,
} from '@engram/console-kit';
import { Textarea } from '@engram/console-kit/widgets';
import { IconArrowUp, IconMessageCircle, IconPlayerStopFilled } from '@tabler/icons-react';
import { useMemberPermissions } from '../queries.js';
import { EntryView, type Resend } from './message-view.js';
import { pendingApprovals, unansweredText, type Entry } from './transcript.js';
import type { useChat } from './use-chat.js';

type Chat = ReturnType<typeof useChat>;

/** The message being written; held by the panel, so "Edit and resend" can put a failed turn's text back in it. */
type Draft = { text: string; setText: (text: string) => void };

function Composer({
  chat,
  draft,
  inputRef,
  mayMessage,
}: {
  chat: Chat;
  draft: Draft;
  inputRef: RefObject<HTMLTextAreaElement | null>;
  mayMessage: boolean;
}) {
  const { text, setText } = draft;
  const busy = chat.status !== 'idle';
  const waitingForApproval = pendingApprovals(chat.transcript).length > 0;
  const submit = () => {
    const message = text.trim();
    if (!message || busy || waitingForApproval || !mayMessage) return;
    setText('');
    void chat.sendText(message);
  };
  return (
    <Box p="sm" style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}>
      <Group align="flex-end" gap="xs" wrap="nowrap">
        <Textarea
          ref={inputRef}
          style={{ flex: 1 }}
          placeholder={
            !mayMessage
              ? 'Your role cannot message agents'
              : waitingForApproval
                ? 'Answer the approval request above first'
                : 'Message the agent (Enter to send, Shift+Enter for a new line)'
          }
          autosize
          minRows={1}
          maxRows={6}
          value={text}
          disabled={waitingForApproval || !mayMessage}
          onChange={(event) => setText(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
              event.preventDefault();
              submit();
            }
          }}
          aria-label="Message"
          radius="md"
          // What the shell's skip link jumps to: the message box, first thing a keyboard user wants here.
          data-skip-target
        />
        {busy && chat.status !== 'loading' ? (
          <Tooltip label="Stop the running turn">
            <ActionIcon size={36} radius="md" color="red" variant="light" onClick={() => void chat.cancel()} loading={chat.status === 'cancelling'} aria-label="Stop">
              <IconPlayerStopFilled size={16} />
            </ActionIcon>
          </Tooltip>
        ) : (
          <ActionIcon size={36} radius="md" onClick={submit} disabled={!text.trim() || waitingForApproval || !mayMessage} aria-label="Send">
            <IconArrowUp size={18} />
          </ActionIcon>
        )}
      </Group>
    </Box>
  );
}

/** The conversation with the agent: history, the live turn, inline approvals, and the composer; `header` goes above. */
export function ChatPanel({ chat, header }: { chat: Chat; header?: ReactNode }) {
  const viewport = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const pending = new Set(pendingApprovals(chat.transcript).map((message) => message.id));
  const live = chat.status === 'streaming' || chat.status === 'resuming';
  const [answering, setAnswering] = useState(false);
  const [draftText, setDraftText] = useState('');
  const draftInput = useRef<HTMLTextAreaElement>(null);
  const draft: Draft = { text: draftText, setText: setDraftText };
  // Known only once the member's permissions are in; until then nothing is sent that the API would refuse.
  const mayMessage = useMemberPermissions().can('message_agents');

  /** Retry and Edit and resend, for a turn that failed or was cancelled and carried text the member may send again. */
  const resendFor = (entry: Entry): Resend | null => {
    const text = entry.kind === 'stop' && mayMessage ? unansweredText(chat.transcript, entry) : null;
    if (text === null) return null;
    return {
      disabled: chat.status !== 'idle' || pending.size > 0,
      onRetry: () => void chat.sendText(text),
      onEdit: () => {
        setDraftText(text);
        draftInput.current?.focus();
      },
    };
  };

  // Follow the newest message unless the user scrolled up to read.
  useEffect(() => {
    const element = viewport.current;
    if (element && pinned.current) element.scrollTo({ top: element.scrollHeight });
  }, [chat.transcript]);

  const lastEntry = chat.transcript.entries.at(-1);
  const latestStop = chat.transcript.entries.findLast((entry) => entry.kind === 'stop')?.key;
  return (
    <Stack gap={0} h="100%" style={{ minHeight: 0 }}>
      {header}
      <ScrollArea
        style={{ flex: 1 }}
        viewportRef={viewport}
        onScrollPositionChange={({ y }) => {
          const element = viewport.current;
          if (element) pinned.current = element.scrollHeight - element.clientHeight - y < 40;
        }}
      >
        <Stack gap="sm" p="md" data-testid="chat-transcript">
          {chat.hasEarlier ? (
            <Center>
              <Button variant="subtle" size="xs" onClick={() => void chat.loadEarlier()}>
                Load earlier messages
              </Button>
            </Center>
          ) : null}
          {chat.status === 'loading' ? (
            <Center py="xl">
              <Loader size="sm" />
            </Center>
          ) : chat.transcript.entries.length === 0 ? (
            <Stack align="center" py={60} gap="xs">
              <ThemeIcon size={44} radius="xl" variant="light">
                <IconMessageCircle size={24} />
              </ThemeIcon>
              <Text fw={600}>Start a conversation</Text>
              <Text size="sm" c="dimmed" ta="center" maw={320}>
                Replies stream in as the agent writes them. Reasoning, tool calls and memory edits show up here too.
              </Text>
            </Stack>
          ) : (
            chat.transcript.entries.map((entry) => (
              <EntryView
                key={entry.key}
                entry={entry}
                live={live && entry === lastEntry}
                latest={entry.key === latestStop}
                pending={entry.kind === 'message' && pending.has(entry.message.id) && chat.status === 'idle'}
                resend={resendFor(entry)}
                busy={answering}
                onAnswer={(toolCallId, approve, reason) => {
                  setAnswering(true);
                  void chat.answerApproval(toolCallId, approve, reason).finally(() => setAnswering(false));
                }}
              />
            ))
          )}
          {live && (lastEntry?.kind !== 'message' || ['user_message', 'tool_return_message', 'approval_response_message'].includes(lastEntry.message.message_type)) ? (
            <Group gap="xs" pl={40} data-testid="agent-working">
              <Loader size="xs" type="dots" />
              <Text size="xs" c="dimmed">
                {chat.status === 'resuming' ? 'Picking up the running turn…' : 'The agent is working…'}
              </Text>
            </Group>
          ) : null}
          {chat.error ? <ErrorNotice error={chat.error} title="The turn could not run" /> : null}
        </Stack>
      </ScrollArea>
      <Composer chat={chat} draft={draft} inputRef={draftInput} mayMessage={mayMessage} />
    </Stack>
  );
}
