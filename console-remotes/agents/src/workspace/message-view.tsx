import { useState, type ReactNode } from 'react';
import {
  ActionIcon,
  Badge,
  Box,
  Button,
  Code,
  Divider,
  Group,
  Menu,
  Paper,
  Stack,
  Text,
  ThemeIcon,
  UnstyledButton,
  useFormatters,
  type WireMessage,
} from '@engram/console-kit';
import { Collapse, Textarea } from '@engram/console-kit/widgets';
import {
  IconAlertTriangle,
  IconBulb,
  IconCheck,
  IconChevronDown,
  IconChevronRight,
  IconHandStop,
  IconPencil,
  IconRefresh,
  IconRobot,
  IconTool,
  IconX,
} from '@tabler/icons-react';
import { useRunUsage } from '../queries.js';
import { messageText, type Entry } from './transcript.js';

/** Long lines (a tool's JSON, a stack trace) wrap inside the chat column instead of scrolling it sideways. */
const WRAPPED_CODE = { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' } as const;

function prettyJson(text: string | undefined): string {
  if (!text) return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

const STOP_LABELS: Record<string, { label: string; color: string }> = {
  end_turn: { label: 'Turn ended', color: 'gray' },
  requires_approval: { label: 'Paused for approval', color: 'orange' },
  cancelled: { label: 'Cancelled', color: 'yellow' },
  error: { label: 'Failed', color: 'red' },
  llm_api_error: { label: 'Model error', color: 'red' },
  max_steps: { label: 'Stopped at the step limit', color: 'yellow' },
  no_tool_call: { label: 'Ended without a tool call', color: 'gray' },
  invalid_tool_call: { label: 'Invalid tool call', color: 'red' },
  invalid_llm_response: { label: 'Invalid model response', color: 'red' },
  max_tokens_exceeded: { label: 'Stopped at the token limit', color: 'yellow' },
  tool_rule: { label: 'Ended by a tool rule', color: 'gray' },
  insufficient_credits: { label: 'Out of credits', color: 'red' },
  context_window_overflow_in_system_prompt: { label: 'The system prompt overflows the context window', color: 'red' },
};

function AgentAvatar() {
  return (
    <ThemeIcon size={30} radius="xl" variant="light" style={{ flexShrink: 0 }}>
      <IconRobot size={18} />
    </ThemeIcon>
  );
}

/** A row on the agent's side: the avatar column keeps reasoning, tools and replies aligned. */
function AgentRow({ children, avatar = false }: { children: ReactNode; avatar?: boolean }) {
  return (
    <Group align="flex-start" gap="sm" wrap="nowrap">
      {avatar ? <AgentAvatar /> : <Box w={30} style={{ flexShrink: 0 }} />}
      <Box style={{ flex: 1, minWidth: 0 }}>{children}</Box>
    </Group>
  );
}

function Reasoning({ message, live }: { message: WireMessage; live: boolean }) {
  const [open, setOpen] = useState(true);
  return (
    <AgentRow>
      <UnstyledButton onClick={() => setOpen((value) => !value)} aria-expanded={open}>
        <Group gap={6} c="dimmed">
          {open ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
          <IconBulb size={14} />
          <Text size="xs" fw={600} tt="uppercase" lts={0.4}>
            {live ? 'Thinking…' : 'Reasoning'}
          </Text>
        </Group>
      </UnstyledButton>
      <Collapse expanded={open}>
        <Text size="sm" c="dimmed" fs="italic" mt={4} pl="md" style={{ borderLeft: '2px solid var(--mantine-color-default-border)', whiteSpace: 'pre-wrap' }} data-testid="reasoning-message">
          {message.reasoning}
        </Text>
      </Collapse>
    </AgentRow>
  );
}

function ToolCallCard({ message }: { message: WireMessage }) {
  const [open, setOpen] = useState(false);
  const call = message.tool_call ?? message.tool_calls?.[0];
  return (
    <AgentRow>
      <Paper withBorder radius="md" px="sm" py={6} data-testid="tool-call-message">
        <UnstyledButton onClick={() => setOpen((value) => !value)} w="100%" aria-expanded={open}>
          <Group gap="xs" wrap="nowrap">
            <IconTool size={15} />
            <Text size="sm" fw={600} ff="monospace" truncate>
              {call?.name ?? 'tool'}
            </Text>
            <Text size="xs" c="dimmed">
              called
            </Text>
            <Box style={{ flex: 1 }} />
            {open ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
          </Group>
        </UnstyledButton>
        <Collapse expanded={open}>
          <Code block mt="xs" fz="xs" style={WRAPPED_CODE}>
            {prettyJson(call?.arguments) || '{}'}
          </Code>
        </Collapse>
      </Paper>
    </AgentRow>
  );
}

function ToolReturnCard({ message }: { message: WireMessage }) {
  const [open, setOpen] = useState(false);
  const ok = message.status !== 'error';
  const output = String(message.tool_return ?? '');
  return (
    <AgentRow>
      <Paper withBorder radius="md" px="sm" py={6} data-testid="tool-return-message" style={{ borderColor: ok ? undefined : 'var(--mantine-color-red-4)' }}>
        <UnstyledButton onClick={() => setOpen((value) => !value)} w="100%" aria-expanded={open}>
          <Group gap="xs" wrap="nowrap">
            {ok ? <IconCheck size={15} color="var(--mantine-color-teal-6)" /> : <IconX size={15} color="var(--mantine-color-red-6)" />}
            <Text size="sm" c="dimmed" truncate style={{ flex: 1, minWidth: 0 }}>
              {ok ? 'Returned' : 'Failed'}: {output.slice(0, 120)}
            </Text>
            {open ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
          </Group>
        </UnstyledButton>
        <Collapse expanded={open}>
          <Code block mt="xs" fz="xs" style={{ ...WRAPPED_CODE, maxHeight: 260, overflowY: 'auto' }} data-testid="tool-return-output">
            {prettyJson(output)}
          </Code>
        </Collapse>
      </Paper>
    </AgentRow>
  );
}

function ApprovalCard({
  message,
  pending,
  busy,
  onAnswer,
}: {
  message: WireMessage;
  pending: boolean;
  busy: boolean;
  onAnswer: (toolCallId: string, approve: boolean, reason?: string) => void;
}) {
  const call = message.tool_call ?? message.tool_calls?.[0];
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState('');
  const callId = call?.tool_call_id ?? '';
  return (
    <AgentRow>
      <Paper
        withBorder
        radius="md"
        p="sm"
        data-testid="approval-request"
        style={{ borderColor: pending ? 'var(--mantine-color-orange-5)' : undefined, background: pending ? 'var(--mantine-color-orange-light)' : undefined }}
      >
        <Stack gap="xs">
          <Group gap="xs">
            <IconHandStop size={16} color="var(--mantine-color-orange-6)" />
            <Text size="sm" fw={600}>
              {pending ? 'Approval needed:' : 'Approval requested:'}{' '}
              <Text span ff="monospace" fw={600}>
                {call?.name}
              </Text>
            </Text>
          </Group>
          <Code block fz="xs" style={WRAPPED_CODE}>
            {prettyJson(call?.arguments) || '{}'}
          </Code>
          {pending ? (
            denying ? (
              <Stack gap="xs">
                <Textarea
                  placeholder="Why not? The agent sees this reason."
                  value={reason}
                  onChange={(event) => setReason(event.currentTarget.value)}
                  autosize
                  minRows={2}
                  aria-label="Reason for denying"
                  data-autofocus
                />
                <Group gap="xs">
                  <Button size="xs" color="red" loading={busy} onClick={() => onAnswer(callId, false, reason.trim())}>
                    Deny
                  </Button>
                  <Button size="xs" variant="default" onClick={() => setDenying(false)}>
                    Back
                  </Button>
                </Group>
              </Stack>
            ) : (
              <Group gap="xs">
                <Button size="xs" color="teal" leftSection={<IconCheck size={14} />} loading={busy} onClick={() => onAnswer(callId, true)}>
                  Approve
                </Button>
                <Button size="xs" variant="light" color="red" leftSection={<IconX size={14} />} disabled={busy} onClick={() => setDenying(true)}>
                  Deny…
                </Button>
              </Group>
            )
          ) : null}
        </Stack>
      </Paper>
    </AgentRow>
  );
}

function ApprovalResponse({ message }: { message: WireMessage }) {
  const approvals = (message.approvals as Array<{ approve?: boolean; reason?: string | null }> | undefined) ?? [];
  const approved = approvals[0]?.approve ?? message.approve ?? false;
  const reason = approvals[0]?.reason ?? message.reason;
  return (
    <Group justify="flex-end" data-testid="approval-response">
      <Badge variant="light" color={approved ? 'teal' : 'red'} leftSection={approved ? <IconCheck size={12} /> : <IconX size={12} />}>
        {approved ? 'You approved' : `You denied${reason ? `: ${reason}` : ''}`}
      </Badge>
    </Group>
  );
}

/**
 * Where a turn ended and what it took: steps and tokens come with the stream's usage frame, and after a
 * reload (history has no usage frames) from the run's record.
 */
/** Sending again what the user typed for a turn that failed or was cancelled: as it was, or edited first. */
export type Resend = { onRetry: () => void; onEdit: () => void; disabled: boolean };

function TurnFooter({ entry, latest, resend }: { entry: Extract<Entry, { kind: 'stop' }>; latest: boolean; resend: Resend | null }) {
  const format = useFormatters();
  const recorded = useRunUsage(entry.runId, entry.usage === null);
  const usage = entry.usage ?? (recorded.data ? { steps: recorded.data.step_count, totalTokens: recorded.data.total_tokens } : null);
  const stop = STOP_LABELS[entry.stopReason] ?? { label: entry.stopReason, color: 'gray' };
  const usageText = usage ? ` · ${usage.steps} step${usage.steps === 1 ? '' : 's'} · ${format.number(usage.totalTokens)} tokens` : '';
  const divider = (
    <Divider
      my={4}
      labelPosition="center"
      data-testid="stop-reason"
      data-stop-reason={entry.stopReason}
      label={
        <Text size="xs" c={stop.color === 'gray' || !latest ? 'dimmed' : stop.color}>
          {stop.label}
          {usageText}
        </Text>
      }
    />
  );
  if (!resend) return divider;
  return (
    <Stack gap={4}>
      {divider}
      {/* Edit and resend sits in the menu: a button named "…resend" would also answer to the composer's "Send". */}
      <Group justify="flex-end" gap={2} data-testid="turn-resend">
        <Button size="compact-xs" variant="light" leftSection={<IconRefresh size={12} />} disabled={resend.disabled} onClick={resend.onRetry}>
          Retry
        </Button>
        <Menu position="bottom-end" withinPortal>
          <Menu.Target>
            <ActionIcon size="sm" variant="subtle" disabled={resend.disabled} aria-label="More for this turn">
              <IconChevronDown size={14} />
            </ActionIcon>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item leftSection={<IconPencil size={14} />} onClick={resend.onEdit}>
              Edit and resend
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
      </Group>
    </Stack>
  );
}

export function EntryView({
  entry,
  live,
  latest,
  pending,
  busy,
  onAnswer,
  resend = null,
}: {
  entry: Entry;
  live: boolean;
  /** The newest stop reason: only it keeps its color; older ones are history. */
  latest: boolean;
  pending: boolean;
  busy: boolean;
  onAnswer: (toolCallId: string, approve: boolean, reason?: string) => void;
  /** On the stop reason of a turn that failed or was cancelled, with the text the user typed for it. */
  resend?: Resend | null;
}) {
  if (entry.kind === 'stop') return <TurnFooter entry={entry} latest={latest} resend={resend} />;
  if (entry.kind === 'error') {
    return (
      <AgentRow>
        <Paper withBorder radius="md" p="sm" style={{ borderColor: 'var(--mantine-color-red-4)' }} role="alert">
          <Group gap="xs" wrap="nowrap" align="flex-start">
            <IconAlertTriangle size={16} color="var(--mantine-color-red-6)" />
            <Text size="sm">{entry.message}</Text>
          </Group>
        </Paper>
      </AgentRow>
    );
  }
  const { message } = entry;
  switch (message.message_type) {
    case 'user_message':
      return (
        <Group justify="flex-end">
          <Paper
            px="md"
            py="xs"
            radius="lg"
            maw="80%"
            data-testid="user-message"
            style={{ background: 'var(--mantine-primary-color-light)', borderBottomRightRadius: 4 }}
          >
            <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {messageText(message)}
            </Text>
          </Paper>
        </Group>
      );
    case 'assistant_message':
      return (
        <AgentRow avatar>
          <Paper withBorder px="md" py="xs" radius="lg" maw="90%" w="fit-content" style={{ borderTopLeftRadius: 4 }}>
            <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }} data-testid="assistant-message">
              {messageText(message)}
            </Text>
          </Paper>
        </AgentRow>
      );
    case 'reasoning_message':
    case 'hidden_reasoning_message':
      return <Reasoning message={message} live={live} />;
    case 'tool_call_message':
      return <ToolCallCard message={message} />;
    case 'tool_return_message':
      return <ToolReturnCard message={message} />;
    case 'approval_request_message':
      return <ApprovalCard message={message} pending={pending} busy={busy} onAnswer={onAnswer} />;
    case 'approval_response_message':
      return <ApprovalResponse message={message} />;
    case 'system_message':
    case 'summary_message':
    case 'event_message':
      return (
        <Text size="xs" c="dimmed" ta="center">
          {message.message_type === 'summary_message' ? 'Earlier messages were summarized.' : messageText(message)}
        </Text>
      );
    default:
      return null;
  }
}
