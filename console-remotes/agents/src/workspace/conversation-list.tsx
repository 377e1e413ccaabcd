import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Badge,
  Button,
  ErrorNotice,
  Group,
  Menu,
  Modal,
  Stack,
  Text,
  TextInput,
  Tooltip,
  useSearchParams,
  useV1,
  useValidatedSubmit,
} from '@engram/console-kit';
import { IconArchive, IconArchiveOff, IconCheck, IconChevronDown, IconEye, IconEyeOff, IconPencil, IconPlus } from '@tabler/icons-react';
import { useMemberPermissions } from '../queries.js';
import {
  conversationKeys,
  conversationName,
  createConversation,
  listConversations,
  retrieveConversation,
  updateConversation,
  type Conversation,
} from './conversations-api.js';

const DEFAULT_NAME = 'Default conversation';

/**
 * The conversation the chat shows, kept in the address (`?conversation=conv-…`; absent: the agent's own history), so a
 * reload reopens it and it can be linked to.
 */
export function useConversationLocation() {
  const [params, setParams] = useSearchParams();
  const conversationId = params.get('conversation');
  const select = (id: string | null) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (id === null) next.delete('conversation');
        else next.set('conversation', id);
        return next;
      },
      { replace: true },
    );
  return { conversationId, select };
}

function RenameDialog({ conversation, onClose }: { conversation: Conversation; onClose: () => void }) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const [name, setName] = useState(conversation.summary ?? '');
  const renamed = useMutation({
    mutationFn: () => updateConversation(conversation.id, { summary: name.trim() || null }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: conversationKeys.all(v1, conversation.agent_id) });
      onClose();
    },
  });
  const { errors, onSubmit } = useValidatedSubmit('conversationName', { name }, () => renamed.mutate());
  return (
    <Modal opened onClose={onClose} title="Rename conversation" centered>
      <form onSubmit={onSubmit} noValidate>
        <Stack>
          {renamed.error ? <ErrorNotice error={renamed.error} title="The conversation was not renamed" /> : null}
          <TextInput label="Name" placeholder={conversationName({ summary: null })} value={name} onChange={(event) => setName(event.currentTarget.value)} error={errors.name} data-autofocus />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={renamed.isPending}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/**
 * The agent's conversations above its chat: which one the chat shows (its own history first), a new one, and renaming
 * and archiving the one shown. Archived conversations are listed only when asked for.
 */
export function ConversationBar({ agentId, conversationId, onSelect }: { agentId: string; conversationId: string | null; onSelect: (id: string | null) => void }) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const mayMessage = useMemberPermissions().can('message_agents');
  const [showArchived, setShowArchived] = useState(false);
  const [renaming, setRenaming] = useState(false);
  const conversations = useQuery({
    queryKey: conversationKeys.list(v1, agentId, showArchived),
    queryFn: () => listConversations(agentId, showArchived),
  });
  // Read on its own: opened from a link, an archived conversation shows while archived ones are hidden from the list.
  const shownQuery = useQuery({
    queryKey: [...conversationKeys.all(v1, agentId), 'one', conversationId],
    queryFn: () => retrieveConversation(conversationId!),
    enabled: conversationId !== null,
  });
  const shown = conversationId === null ? null : (shownQuery.data ?? null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: conversationKeys.all(v1, agentId) });

  const created = useMutation({
    mutationFn: () => createConversation(agentId),
    onSuccess: async (conversation) => {
      await refresh();
      onSelect(conversation.id);
    },
  });
  const archived = useMutation({
    mutationFn: (conversation: Conversation) => updateConversation(conversation.id, { archived: !conversation.archived }),
    onSuccess: async (conversation) => {
      await refresh();
      // An archived conversation leaves the list: the chat goes back to the agent's own history.
      if (conversation.archived && !showArchived) onSelect(null);
    },
  });
  const changeFailure = created.error ?? archived.error;

  return (
    <Stack gap={0} style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }} data-testid="conversation-bar">
      <Group px="sm" py={6} justify="space-between" wrap="nowrap">
        <Menu position="bottom-start" width={280} shadow="md">
          <Menu.Target>
            <Button variant="subtle" size="compact-sm" rightSection={<IconChevronDown size={14} />} aria-label="Conversations" data-testid="conversation-current" style={{ minWidth: 0 }}>
              <Text size="sm" fw={600} truncate>
                {conversationId === null ? DEFAULT_NAME : shown ? conversationName(shown) : 'Conversation'}
              </Text>
            </Button>
          </Menu.Target>
          <Menu.Dropdown data-testid="conversation-list">
            <Menu.Label>Conversations</Menu.Label>
            <Menu.Item leftSection={conversationId === null ? <IconCheck size={14} /> : <span style={{ width: 14 }} />} onClick={() => onSelect(null)}>
              {DEFAULT_NAME}
            </Menu.Item>
            {(conversations.data ?? []).map((conversation) => (
              <Menu.Item
                key={conversation.id}
                leftSection={conversation.id === conversationId ? <IconCheck size={14} /> : <span style={{ width: 14 }} />}
                rightSection={conversation.archived ? <Badge size="xs" variant="light" color="gray">Archived</Badge> : null}
                onClick={() => onSelect(conversation.id)}
              >
                {conversationName(conversation)}
              </Menu.Item>
            ))}
            {conversations.isPending ? <Menu.Label>Loading…</Menu.Label> : null}
            <Menu.Divider />
            <Menu.Item leftSection={showArchived ? <IconEyeOff size={14} /> : <IconEye size={14} />} onClick={() => setShowArchived(!showArchived)}>
              {showArchived ? 'Hide archived' : 'Show archived'}
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
        {mayMessage ? (
          <Group gap={4} wrap="nowrap">
            {shown ? (
              <>
                <Tooltip label="Rename conversation">
                  <ActionIcon variant="subtle" color="gray" aria-label="Rename conversation" onClick={() => setRenaming(true)}>
                    <IconPencil size={16} />
                  </ActionIcon>
                </Tooltip>
                <Tooltip label={shown.archived ? 'Unarchive conversation' : 'Archive conversation'}>
                  <ActionIcon
                    variant="subtle"
                    color="gray"
                    aria-label={shown.archived ? 'Unarchive conversation' : 'Archive conversation'}
                    loading={archived.isPending}
                    onClick={() => archived.mutate(shown)}
                  >
                    {shown.archived ? <IconArchiveOff size={16} /> : <IconArchive size={16} />}
                  </ActionIcon>
                </Tooltip>
              </>
            ) : null}
            <Tooltip label="New conversation">
              <ActionIcon variant="light" aria-label="New conversation" loading={created.isPending} onClick={() => created.mutate()}>
                <IconPlus size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        ) : null}
      </Group>
      {conversations.error ? <ErrorNotice error={conversations.error} title="The conversations could not be loaded" onRetry={() => void conversations.refetch()} /> : null}
      {changeFailure ? <ErrorNotice error={changeFailure} title="The conversation was not changed" /> : null}
      {renaming && shown ? <RenameDialog conversation={shown} onClose={() => setRenaming(false)} /> : null}
    </Stack>
  );
}
