import { useState, type FormEvent } from 'react';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Anchor,
  Badge,
  Button,
  Card,
  ErrorNotice,
  Group,
  Paper,
  Skeleton,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
  useFormatters,
  useNavigate,
  useParams,
  useV1,
  type Wire,
} from '@engram/console-kit';
import { IconArrowLeft, IconSend, IconTrash } from '@tabler/icons-react';
import { usePermissions } from '../access/use-permissions.js';
import { ConfirmDialog } from '../confirm-dialog.js';
import { agentKeys } from '../queries.js';
import { deleteGroup, getGroup, listGroupMessages, managerTypeLabel, sendGroupMessage } from './groups-api.js';
import { groupKeys } from './group-keys.js';

/** The text a listed message shows: its content or reasoning, whatever its type. */
function textOf(message: Wire.LettaMessage): string {
  if ('content' in message) {
    const content = message.content as string | Array<{ text?: string }>;
    return typeof content === 'string' ? content : content.map((part) => part.text ?? '').join('');
  }
  if (message.message_type === 'reasoning_message') return message.reasoning;
  if (message.message_type === 'tool_call_message') return `${message.tool_call?.name ?? 'tool'}(${message.tool_call?.arguments ?? ''})`;
  if (message.message_type === 'tool_return_message') return message.tool_return;
  return '';
}

/** One line of the group chat: who said it, then what. The user's words are on the right. */
function ChatLine({ message }: { message: Wire.LettaMessage }) {
  const format = useFormatters();
  const fromUser = message.message_type === 'user_message';
  const speaker = fromUser ? (message.name ?? 'You') : (message.name ?? 'Agent');
  const kind = message.message_type.replace(/_message$/, '').replace(/_/g, ' ');
  return (
    <Group justify={fromUser ? 'flex-end' : 'flex-start'} data-testid="group-chat-line" data-speaker={speaker} data-kind={message.message_type}>
      <Paper withBorder p="sm" radius="md" maw="80%" bg={fromUser ? 'var(--mantine-color-blue-light)' : undefined}>
        <Group gap={6} mb={4}>
          <Text size="xs" fw={700} data-testid="group-chat-speaker">
            {speaker}
          </Text>
          {message.message_type === 'assistant_message' || fromUser ? null : (
            <Badge size="xs" variant="outline" tt="none">
              {kind}
            </Badge>
          )}
          <Text size="xs" c="dimmed">
            {format.relative(message.date, 'narrow')}
          </Text>
        </Group>
        <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }} data-testid="group-chat-text">
          {textOf(message)}
        </Text>
      </Paper>
    </Group>
  );
}

/**
 * A group: its members and how its turns go, and its conversation with who said what. A message sent here is one
 * turn of the group; the transcript shows it once the members have answered.
 */
export function GroupPage() {
  const v1 = useV1();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { can } = usePermissions();
  const { groupId = '' } = useParams();
  const [draft, setDraft] = useState('');
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const group = useQuery({ queryKey: groupKeys.group(v1, groupId), queryFn: () => getGroup(groupId) });
  const transcript = useQuery({ queryKey: groupKeys.messages(v1, groupId), queryFn: () => listGroupMessages(groupId) });
  const participantIds = group.data ? [...new Set([...(group.data.manager_agent_id ? [group.data.manager_agent_id] : []), ...group.data.agent_ids])] : [];
  const participants = useQueries({
    queries: participantIds.map((agentId) => ({ queryKey: agentKeys.agent(v1, agentId), queryFn: () => v1.getAgent(agentId) })),
  });
  const nameOf = (agentId: string) => participants.find((agent) => agent.data?.id === agentId)?.data?.name ?? agentId;

  const send = useMutation({
    mutationFn: (text: string) => sendGroupMessage(groupId, text),
    onSuccess: async () => {
      setDraft('');
      await queryClient.invalidateQueries({ queryKey: groupKeys.messages(v1, groupId) });
    },
  });
  const remove = useMutation({
    mutationFn: () => deleteGroup(groupId),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: groupKeys.all(v1) });
      void navigate('..', { relative: 'path' });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (draft.trim()) send.mutate(draft.trim());
  };

  if (group.error) return <ErrorNotice error={group.error} onRetry={() => void group.refetch()} />;
  if (!group.data) return <Skeleton h={200} />;
  const { data } = group;
  const agentLink = (agentId: string) => (
    <Anchor key={agentId} size="sm" onClick={() => void navigate(`../../${agentId}`, { relative: 'path' })} data-testid="group-member">
      {nameOf(agentId)}
    </Anchor>
  );

  return (
    <Stack>
      <Group justify="space-between" align="flex-start">
        <Group gap="xs">
          <Tooltip label="All groups">
            <ActionIcon variant="subtle" aria-label="All groups" onClick={() => void navigate('..', { relative: 'path' })}>
              <IconArrowLeft size={18} />
            </ActionIcon>
          </Tooltip>
          <Title order={2} fz="h3">
            {data.description}
          </Title>
          <Badge variant="light" tt="none" data-testid="group-manager-type">
            {managerTypeLabel(data.manager_type)}
          </Badge>
        </Group>
        {can('deleteGroup') ? (
          <Button variant="subtle" color="red" size="xs" leftSection={<IconTrash size={14} />} onClick={() => setConfirmingDelete(true)}>
            Delete group
          </Button>
        ) : null}
      </Group>
      <Card withBorder radius="md" p="md">
        <Stack gap={6}>
          {data.manager_agent_id ? (
            <Group gap="xs">
              <Text size="sm" c="dimmed" w={110}>
                Manager
              </Text>
              {agentLink(data.manager_agent_id)}
            </Group>
          ) : null}
          <Group gap="xs" align="flex-start">
            <Text size="sm" c="dimmed" w={110}>
              Members
            </Text>
            <Group gap="sm" data-testid="group-members">
              {data.agent_ids.map(agentLink)}
            </Group>
          </Group>
          {data.max_turns !== null || data.termination_token || data.sleeptime_agent_frequency !== null ? (
            <Group gap="xs">
              <Text size="sm" c="dimmed" w={110}>
                Settings
              </Text>
              <Text size="sm">
                {[
                  data.max_turns !== null ? `at most ${data.max_turns} turns` : null,
                  data.termination_token ? `ends on "${data.termination_token}"` : null,
                  data.sleeptime_agent_frequency !== null ? `sleep-time every ${data.sleeptime_agent_frequency} turns (${data.turns_counter ?? 0} so far)` : null,
                ]
                  .filter(Boolean)
                  .join(', ')}
              </Text>
            </Group>
          ) : null}
        </Stack>
      </Card>
      <Card withBorder radius="md" p="md">
        <Stack gap="sm">
          <Text fw={600}>Group chat</Text>
          {transcript.error ? <ErrorNotice error={transcript.error} onRetry={() => void transcript.refetch()} /> : null}
          {transcript.isPending ? <Skeleton h={80} /> : null}
          {transcript.data && transcript.data.length === 0 ? (
            <Text size="sm" c="dimmed">
              Nothing said yet: send a message and the members answer in turn.
            </Text>
          ) : null}
          <Stack gap="xs" data-testid="group-chat">
            {(transcript.data ?? []).map((message) => (
              <ChatLine key={`${message.id}-${message.message_type}-${message.otid ?? ''}`} message={message} />
            ))}
          </Stack>
          {send.error ? <ErrorNotice error={send.error} title="The group did not answer" /> : null}
          {can('messageGroup') ? (
            <form onSubmit={submit} aria-label="Message the group">
              <Group gap="xs" align="flex-end">
                <TextInput style={{ flex: 1 }} aria-label="Message the group" placeholder="Message the group" value={draft} onChange={(event) => setDraft(event.currentTarget.value)} disabled={send.isPending} />
                <Button type="submit" loading={send.isPending} disabled={!draft.trim()} leftSection={<IconSend size={14} />}>
                  Send
                </Button>
              </Group>
            </form>
          ) : null}
        </Stack>
      </Card>
      {confirmingDelete ? (
        <ConfirmDialog title="Delete this group?" confirmLabel="Delete group" mutation={remove} onConfirm={() => remove.mutate()} onClose={() => setConfirmingDelete(false)}>
          Its members and their histories stay.
        </ConfirmDialog>
      ) : null}
    </Stack>
  );
}
