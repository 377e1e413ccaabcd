import { useState, type ReactNode } from 'react';
import {
  ActionIcon,
  Badge,
  Box,
  Card,
  CopyButton,
  ErrorNotice,
  Group,
  Link,
  Loader,
  ScrollArea,
  Stack,
  Text,
  Title,
  Tooltip,
  useMediaQuery,
  useParams,
  type Agent,
} from '@engram/console-kit';
import { Tabs } from '@engram/console-kit/widgets';
import { IconArchive, IconArrowLeft, IconBrain, IconChartBar, IconCheck, IconCopy, IconFiles, IconHistory, IconMessageCircle, IconTool } from '@tabler/icons-react';
import { useAgent } from '../queries.js';
import { ArchivalPanel } from './archival-panel.js';
import { ChatPanel } from './chat-panel.js';
import { ContextPanel } from './context-panel.js';
import { FilesPanel } from './files-panel.js';
import { MemoryPanel } from './memory-panel.js';
import { RunsPanel } from './runs-panel.js';
import { SplitPane } from './split-pane.js';
import { ToolsPanel } from './tools-panel.js';
import { useChat } from './use-chat.js';

type PanelId = 'memory' | 'tools' | 'context' | 'runs' | 'archival' | 'files';

const PANELS: Array<{ id: PanelId; label: string; icon: ReactNode }> = [
  { id: 'memory', label: 'Memory', icon: <IconBrain size={15} /> },
  { id: 'tools', label: 'Tools', icon: <IconTool size={15} /> },
  { id: 'context', label: 'Context', icon: <IconChartBar size={15} /> },
  { id: 'runs', label: 'Runs', icon: <IconHistory size={15} /> },
  { id: 'archival', label: 'Archive', icon: <IconArchive size={15} /> },
  { id: 'files', label: 'Files', icon: <IconFiles size={15} /> },
];

function PanelBody({ id, agent }: { id: PanelId; agent: Agent }) {
  switch (id) {
    case 'memory':
      return <MemoryPanel agentId={agent.id} />;
    case 'tools':
      return <ToolsPanel agent={agent} />;
    case 'context':
      return <ContextPanel agentId={agent.id} />;
    case 'runs':
      return <RunsPanel agentId={agent.id} />;
    case 'archival':
      return <ArchivalPanel agentId={agent.id} />;
    case 'files':
      return <FilesPanel agentId={agent.id} />;
  }
}

function AgentHeader({ agent }: { agent: Agent }) {
  return (
    <Group justify="space-between" wrap="nowrap" gap="sm" mb="sm">
      <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
        <Tooltip label="All agents">
          <ActionIcon component={Link} to=".." relative="path" variant="subtle" aria-label="All agents">
            <IconArrowLeft size={18} />
          </ActionIcon>
        </Tooltip>
        <Stack gap={0} style={{ minWidth: 0 }}>
          <Title order={3} fz={{ base: 'h4', sm: 'h3' }} lh={1.2} lineClamp={1} data-testid="agent-name">
            {agent.name}
          </Title>
          <Group gap={6} wrap="nowrap">
            <Text size="xs" c="dimmed" ff="monospace" truncate>
              {agent.id}
            </Text>
            <CopyButton value={agent.id}>
              {({ copied, copy }) => (
                <ActionIcon size="xs" variant="subtle" color={copied ? 'teal' : 'gray'} onClick={copy} aria-label="Copy agent id">
                  {copied ? <IconCheck size={12} /> : <IconCopy size={12} />}
                </ActionIcon>
              )}
            </CopyButton>
          </Group>
        </Stack>
      </Group>
      <Group gap={6} wrap="nowrap" visibleFrom="sm">
        {agent.tags.slice(0, 3).map((tag) => (
          <Badge key={tag} variant="outline" size="sm" tt="none">
            {tag}
          </Badge>
        ))}
        <Badge variant="light" size="lg" tt="none" radius="sm" ff="monospace">
          {agent.model ?? agent.llm_config.model}
        </Badge>
      </Group>
    </Group>
  );
}

/** One agent: chat on the left, memory / tools / context / runs / archive / files on the right (tabs on phones). */
export function AgentWorkspace() {
  const { agentId = '' } = useParams();
  const agent = useAgent(agentId);
  const chat = useChat(agentId);
  const wide = useMediaQuery('(min-width: 62em)', true);
  const [panel, setPanel] = useState<PanelId>('memory');
  const [mobileTab, setMobileTab] = useState<'chat' | PanelId>('chat');

  if (agent.isPending) return <Loader m="xl" />;
  if (agent.error) return <ErrorNotice error={agent.error} title="This agent could not be opened" onRetry={() => void agent.refetch()} />;

  const height = 'calc(100dvh - var(--app-shell-header-offset, 60px) - 2 * var(--app-shell-padding, 16px))';
  const chatCard = (
    <Card withBorder radius="lg" p={0} h="100%" data-testid="chat-panel">
      <ChatPanel chat={chat} />
    </Card>
  );

  if (!wide) {
    return (
      <Stack gap={0} h={height}>
        <AgentHeader agent={agent.data} />
        <Tabs value={mobileTab} onChange={(value) => setMobileTab((value as 'chat' | PanelId) ?? 'chat')} keepMounted={false} variant="pills" radius="md">
          <ScrollArea type="never" mb="xs">
            {/* On a phone only the open tab shows its name; the others are icons (named for screen readers). */}
            <Tabs.List style={{ flexWrap: 'nowrap' }}>
              {[{ id: 'chat' as const, label: 'Chat', icon: <IconMessageCircle size={16} /> }, ...PANELS].map((item) => (
                <Tabs.Tab key={item.id} value={item.id} leftSection={item.icon} aria-label={item.label} px="sm">
                  {mobileTab === item.id ? item.label : null}
                </Tabs.Tab>
              ))}
            </Tabs.List>
          </ScrollArea>
        </Tabs>
        <Box style={{ flex: 1, minHeight: 0 }}>
          {mobileTab === 'chat' ? (
            chatCard
          ) : (
            <ScrollArea h="100%" offsetScrollbars="present">
              <PanelBody id={mobileTab} agent={agent.data} />
            </ScrollArea>
          )}
        </Box>
      </Stack>
    );
  }

  return (
    <Stack gap={0} h={height}>
      <AgentHeader agent={agent.data} />
      <Box style={{ flex: 1, minHeight: 0 }}>
        <SplitPane
          id="ade"
          defaultLeft={60}
          left={chatCard}
          right={
            <Card withBorder radius="lg" p={0} h="100%">
              <Tabs value={panel} onChange={(value) => setPanel((value as PanelId) ?? 'memory')} keepMounted={false} h="100%" style={{ display: 'flex', flexDirection: 'column' }}>
                <Tabs.List px="xs" pt={4} style={{ flexWrap: 'nowrap' }}>
                  {PANELS.map((item) => (
                    <Tabs.Tab key={item.id} value={item.id} px="sm">
                      {item.label}
                    </Tabs.Tab>
                  ))}
                </Tabs.List>
                <ScrollArea style={{ flex: 1 }} p="sm">
                  <PanelBody id={panel} agent={agent.data} />
                </ScrollArea>
              </Tabs>
            </Card>
          }
        />
      </Box>
    </Stack>
  );
}
