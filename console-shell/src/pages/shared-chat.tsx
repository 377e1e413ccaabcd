import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ApiError,
  Badge,
  Box,
  Button,
  Card,
  Center,
  ErrorNotice,
  Group,
  Link,
  Loader,
  Paper,
  ScrollArea,
  SHARE_ACCESS_LEVELS,
  sharingApi,
  SplitPane,
  Stack,
  Text,
  TextInput,
  Title,
  readSse,
  useMediaQuery,
  useParams,
  type SharedChat,
  type WireMessage,
} from '@engram/console-kit';
import { IconLock, IconMessageCircle, IconSend } from '@tabler/icons-react';
import { Logo } from '../layout/logo.js';

type Line = { id: string; role: 'user' | 'assistant'; text: string };

function textOf(content: WireMessage['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((part) => part.text ?? '').join('');
}

function linesOf(messages: WireMessage[]): Line[] {
  return messages.flatMap((message): Line[] => {
    if (message.message_type === 'user_message') return [{ id: message.id, role: 'user', text: textOf(message.content) }];
    if (message.message_type === 'assistant_message') return [{ id: message.id, role: 'assistant', text: textOf(message.content) }];
    return [];
  });
}

/** A page of its own, without the console's navigation: visitors of a shared chat may have no account. */
export function PublicFrame({ children }: { children: ReactNode }) {
  return (
    <Stack gap={0} h="100dvh">
      <Group px="md" py="xs" justify="space-between" style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}>
        <Logo />
      </Group>
      <Box style={{ flex: 1, minHeight: 0 }} p="md">
        {children}
      </Box>
    </Stack>
  );
}

/** Why the chat cannot be shown: signed out of a chat that needs an account, or not shared with this visitor. */
export function RefusedNotice({ error, what, path }: { error: unknown; what: string; path: string }) {
  if (error instanceof ApiError && error.status === 401) {
    return (
      <Center h="100%">
        <Paper withBorder p="xl" radius="lg" maw={420}>
          <Stack align="center" ta="center">
            <IconLock size={32} />
            <Title order={3}>Sign in to open this {what}</Title>
            <Text c="dimmed" size="sm">
              It is shared with signed-in people only.
            </Text>
            <Button component={Link} to="/login" state={{ from: path }}>
              Sign in
            </Button>
          </Stack>
        </Paper>
      </Center>
    );
  }
  if (error instanceof ApiError && error.status === 404) {
    return (
      <Center h="100%">
        <Paper withBorder p="xl" radius="lg" maw={420}>
          <Stack align="center" ta="center">
            <Title order={3}>This {what} is not available</Title>
            <Text c="dimmed" size="sm">
              It does not exist, or it is not shared with you.
            </Text>
          </Stack>
        </Paper>
      </Center>
    );
  }
  return <ErrorNotice error={error} title={`This ${what} could not be opened`} />;
}

function AboutPanel({ chat }: { chat: SharedChat }) {
  const level = SHARE_ACCESS_LEVELS.find((candidate) => candidate.value === chat.accessLevel);
  return (
    <Card withBorder radius="lg" h="100%">
      <Stack gap="sm">
        <Title order={3} data-testid="shared-agent-name">
          {chat.agentName}
        </Title>
        {chat.agentDescription ? <Text size="sm">{chat.agentDescription}</Text> : null}
        <Group gap={6}>
          <Badge variant="light" tt="none">
            {level?.label ?? chat.accessLevel}
          </Badge>
          {chat.isFromLaunchLink ? (
            <Badge variant="outline" tt="none">
              Your own agent
            </Badge>
          ) : null}
        </Group>
        <Text size="xs" c="dimmed">
          {chat.isFromLaunchLink
            ? 'This agent was made for you from a launch link; only you can chat with it.'
            : 'Your conversation is your own: nobody else who opens this link sees it.'}
        </Text>
      </Stack>
    </Card>
  );
}

function Conversation({ chatId }: { chatId: string }) {
  const queryClient = useQueryClient();
  const messages = useQuery({ queryKey: ['shared-chat', chatId, 'messages'], queryFn: () => sharingApi.chatMessages(chatId) });
  const [draft, setDraft] = useState('');
  const [pending, setPending] = useState<Line[]>([]);
  const bottom = useRef<HTMLDivElement>(null);

  const send = useMutation({
    mutationFn: async (text: string) => {
      setPending([{ id: 'pending-user', role: 'user', text }]);
      const response = await sharingApi.sendChatMessage(chatId, text);
      if (!response.body) return;
      // Token deltas of one message share its id: the text grows as they arrive.
      const streamed = new Map<string, string>();
      for await (const event of readSse(response.body)) {
        if (event.data === '[DONE]') break;
        const frame = JSON.parse(event.data) as WireMessage;
        if (frame.message_type !== 'assistant_message') continue;
        streamed.set(frame.id, (streamed.get(frame.id) ?? '') + textOf(frame.content));
        setPending([{ id: 'pending-user', role: 'user', text }, ...[...streamed].map(([id, streamedText]) => ({ id, role: 'assistant' as const, text: streamedText }))]);
      }
    },
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: ['shared-chat', chatId] });
      setPending([]);
    },
  });

  const lines = [...linesOf(messages.data ?? []), ...pending];
  useEffect(() => {
    bottom.current?.scrollIntoView({ block: 'end' });
  }, [lines.length, pending]);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const text = draft.trim();
    if (!text || send.isPending) return;
    setDraft('');
    send.mutate(text);
  };

  return (
    <Card withBorder radius="lg" p={0} h="100%" data-testid="shared-chat">
      <Stack gap={0} h="100%">
        <ScrollArea style={{ flex: 1 }} p="md">
          {messages.isPending ? <Loader size="sm" /> : null}
          {messages.error ? <ErrorNotice error={messages.error} title="The conversation could not be loaded" onRetry={() => void messages.refetch()} /> : null}
          {lines.length === 0 && messages.isSuccess ? (
            <Center py="xl" c="dimmed">
              <Stack align="center" gap={4}>
                <IconMessageCircle size={28} />
                <Text size="sm">Say hello to start your conversation.</Text>
              </Stack>
            </Center>
          ) : null}
          <Stack gap="sm">
            {lines.map((line) => (
              <Group key={line.id} justify={line.role === 'user' ? 'flex-end' : 'flex-start'}>
                <Paper
                  px="md"
                  py={8}
                  radius="lg"
                  maw="80%"
                  bg={line.role === 'user' ? 'var(--mantine-primary-color-light)' : 'var(--mantine-color-default-hover)'}
                  data-testid={line.role === 'user' ? 'visitor-message' : 'agent-message'}
                >
                  <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                    {line.text}
                  </Text>
                </Paper>
              </Group>
            ))}
          </Stack>
          <div ref={bottom} />
        </ScrollArea>
        {send.error ? (
          <Box px="md">
            <ErrorNotice error={send.error} title="The message was not sent" />
          </Box>
        ) : null}
        <Box component="form" onSubmit={onSubmit} p="md" style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}>
          <Group gap="xs" wrap="nowrap">
            <TextInput
              style={{ flex: 1 }}
              placeholder="Write a message"
              aria-label="Message"
              value={draft}
              onChange={(event) => setDraft(event.currentTarget.value)}
              disabled={send.isPending}
            />
            <Button type="submit" leftSection={<IconSend size={16} />} loading={send.isPending} disabled={!draft.trim()}>
              Send
            </Button>
          </Group>
        </Box>
      </Stack>
    </Card>
  );
}

/**
 * `/chat/{chatId}` (spec 000 §2): a shared agent's chat for whoever its access level admits, signed in or not,
 * without the console around it. Beside the conversation, the agent's name and who the chat is shared with; the
 * split between them is kept in the layout cookie.
 */
export function SharedChatPage() {
  const { chatId = '' } = useParams();
  const chat = useQuery({ queryKey: ['shared-chat', chatId], queryFn: () => sharingApi.chat(chatId), retry: false });
  const wide = useMediaQuery('(min-width: 62em)', true);
  let body: ReactNode;
  if (chat.isPending) body = <Loader m="xl" />;
  else if (chat.error) body = <RefusedNotice error={chat.error} what="chat" path={`/chat/${chatId}`} />;
  else if (!wide) {
    body = (
      <Stack h="100%" gap="sm">
        <Title order={4}>{chat.data.agentName}</Title>
        <Box style={{ flex: 1, minHeight: 0 }}>
          <Conversation chatId={chatId} />
        </Box>
      </Stack>
    );
  } else body = <SplitPane id="shared-chat" defaultLeft={30} left={<AboutPanel chat={chat.data} />} right={<Conversation chatId={chatId} />} />;
  return <PublicFrame>{body}</PublicFrame>;
}
