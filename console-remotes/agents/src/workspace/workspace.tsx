import { useLayoutEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import {
  ActionIcon,
  Badge,
  Box,
  Button,
  Card,
  CopyButton,
  ErrorNotice,
  Group,
  Link,
  Loader,
  Menu,
  SplitPane,
  ScrollArea,
  Stack,
  Text,
  Title,
  Tooltip,
  useMediaQuery,
  useParams,
  useSearchParams,
  type Agent,
} from '@engram/console-kit';
import { Tabs } from '@engram/console-kit/widgets';
import {
  IconArchive,
  IconArrowLeft,
  IconBrain,
  IconChartBar,
  IconCheck,
  IconChevronDown,
  IconCopy,
  IconFiles,
  IconHistory,
  IconMessageCircle,
  IconSettings,
  IconTemplate,
  IconTool,
} from '@tabler/icons-react';
import { useAgent } from '../queries.js';
import { ShareAgentButton } from '../sharing/share-dialogs.js';
import { ArchivalPanel } from './archival-panel.js';
import { ChatPanel } from './chat-panel.js';
import { ContextPanel } from './context-panel.js';
import { ConversationBar, useConversationLocation } from './conversation-list.js';
import { FilesPanel } from './files-panel.js';
import { MemoryPanel } from './memory-panel.js';
import { RunsPanel } from './runs-panel.js';
import { SettingsPanel } from './settings-panel.js';
import { ToolsPanel } from './tools-panel.js';
import { useChat } from './use-chat.js';

type PanelId = 'template' | 'memory' | 'tools' | 'context' | 'runs' | 'archival' | 'files' | 'settings';

type Panel = { id: PanelId; label: string; icon: ReactNode };

const PANELS: Panel[] = [
  { id: 'memory', label: 'Memory', icon: <IconBrain size={15} /> },
  { id: 'tools', label: 'Tools', icon: <IconTool size={15} /> },
  { id: 'context', label: 'Context', icon: <IconChartBar size={15} /> },
  { id: 'runs', label: 'Runs', icon: <IconHistory size={15} /> },
  { id: 'archival', label: 'Archive', icon: <IconArchive size={15} /> },
  { id: 'files', label: 'Files', icon: <IconFiles size={15} /> },
  { id: 'settings', label: 'Settings', icon: <IconSettings size={15} /> },
];

/** A template's editor shows the template's own memory in place of the agent's, and no archive (templates have none). */
const TEMPLATE_PANELS: Panel[] = [
  { id: 'template', label: 'Template', icon: <IconTemplate size={15} /> },
  ...PANELS.filter((panel) => panel.id !== 'memory' && panel.id !== 'archival'),
];

const isPanelOf = (panels: Panel[]) => (value: string | null): value is PanelId => panels.some((panel) => panel.id === value);

/**
 * What a link may call a panel besides its id: the name its tab shows, in any case (`?panel=archive` opens the
 * Archive, whose id is `archival`).
 */
function panelIdOf(panels: Panel[], requested: string | null): string | null {
  if (requested === null) return null;
  const wanted = requested.toLowerCase();
  return panels.find((panel) => panel.id === wanted || panel.label.toLowerCase() === wanted)?.id ?? wanted;
}

/**
 * The open panel and run, kept in the address (`?panel=runs&run=…`): a reload reopens them and a run can be linked
 * to. Switching panels replaces the entry; opening a run adds one, so Back returns to the list.
 */
function usePanelLocation(fallback: PanelId | 'chat', panels: Panel[]) {
  const isPanel = isPanelOf(panels);
  const [params, setParams] = useSearchParams();
  const requested = panelIdOf(panels, params.get('panel'));
  const runId = params.get('run');
  const panel: PanelId | 'chat' = isPanel(requested) ? requested : requested === 'chat' && fallback === 'chat' ? 'chat' : runId ? 'runs' : fallback;
  const update = (changes: Record<string, string | null>, replace: boolean) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(changes)) {
          if (value === null) next.delete(key);
          else next.set(key, value);
        }
        return next;
      },
      { replace },
    );
  return {
    panel,
    runId,
    openPanel: (id: PanelId | 'chat') => update({ panel: id, run: id === 'runs' ? runId : null }, true),
    openRun: (id: string | null) => update({ panel: 'runs', run: id }, false),
  };
}

type TabsLayout = {
  /** `labels`: every tab by name; `icons`: icons, the open tab also by name (each named for screen readers and on hover). */
  style: 'labels' | 'icons';
  /** The tabs that show; the rest are in the More menu. */
  shown: PanelId[];
};

/**
 * How the panel tabs fit the width the right-hand side has: every tab by name if they fit, else icons with the open
 * tab's name, else the open tab and as many others as fit, in order, beside a "More" menu for the rest. Widths are
 * read from an invisible row of every tab in each style (fonts and labels decide them) and of the More button.
 */
function useTabsLayout(
  value: PanelId,
  panels: Panel[],
): TabsLayout & { rowRef: RefObject<HTMLDivElement | null>; measureRef: RefObject<HTMLDivElement | null> } {
  const rowRef = useRef<HTMLDivElement>(null);
  const measureRef = useRef<HTMLDivElement>(null);
  const [layout, setLayout] = useState<TabsLayout>({ style: 'labels', shown: panels.map((panel) => panel.id) });
  useLayoutEffect(() => {
    const row = rowRef.current;
    const measure = measureRef.current;
    if (!row || !measure) return;
    const fit = () => {
      const widthOf = (key: string) => measure.querySelector<HTMLElement>(`[data-measure="${key}"]`)?.offsetWidth ?? 0;
      const available = row.clientWidth;
      const all = panels.map((panel) => panel.id);
      const total = (keys: string[]) => keys.reduce((sum, key) => sum + widthOf(key), 0);
      if (total(all.map((id) => `label-${id}`)) <= available) return setLayout({ style: 'labels', shown: all });
      const compact = all.map((id) => (id === value ? `named-${id}` : `icon-${id}`));
      if (total(compact) <= available) return setLayout({ style: 'icons', shown: all });
      let room = available - widthOf(`named-${value}`) - widthOf('more');
      const shown = new Set<PanelId>([value]);
      for (const id of all.filter((candidate) => candidate !== value)) {
        room -= widthOf(`icon-${id}`);
        if (room < 0) break;
        shown.add(id);
      }
      setLayout({ style: 'icons', shown: all.filter((id) => shown.has(id)) });
    };
    const observer = new ResizeObserver(fit);
    observer.observe(row);
    observer.observe(measure);
    fit();
    return () => observer.disconnect();
  }, [value, panels]);
  return { ...layout, rowRef, measureRef };
}

function PanelTab({ panel, style, open, measure }: { panel: Panel; style: 'labels' | 'icons' | 'named'; open?: boolean; measure?: string }) {
  const named = style === 'labels' || style === 'named' || open;
  const tab = (
    <Tabs.Tab value={measure ? `measure-${measure}` : panel.id} px={style === 'labels' ? 'sm' : 'xs'} leftSection={style === 'labels' ? undefined : panel.icon} aria-label={panel.label} data-measure={measure}>
      {named ? panel.label : null}
    </Tabs.Tab>
  );
  return named || measure ? tab : <Tooltip label={panel.label}>{tab}</Tooltip>;
}

/** The right-hand panel's tabs, as many as fit (see useTabsLayout), the open one always; the others are under More. */
function PanelTabs({ value, onChange, panels }: { value: PanelId; onChange: (panel: PanelId) => void; panels: Panel[] }) {
  const { rowRef, measureRef, style, shown } = useTabsLayout(value, panels);
  const hidden = panels.filter((panel) => !shown.includes(panel.id));
  const moreButton = (count: number, measured = false) => (
    <Button
      size="compact-xs"
      variant="subtle"
      color="gray"
      rightSection={<IconChevronDown size={12} />}
      style={{ flexShrink: 0 }}
      data-testid={measured ? undefined : 'more-panels'}
    >
      More ({count})
    </Button>
  );
  return (
    <Box px="xs" pt={4} style={{ position: 'relative' }}>
      <Group ref={rowRef} gap={4} wrap="nowrap" style={{ minWidth: 0 }}>
        <Tabs.List style={{ flexWrap: 'nowrap', flex: 1, minWidth: 0 }}>
          {panels.filter((panel) => shown.includes(panel.id)).map((panel) => (
            <PanelTab key={panel.id} panel={panel} style={style} open={panel.id === value} />
          ))}
        </Tabs.List>
        {hidden.length > 0 ? (
          <Menu position="bottom-end" withinPortal>
            <Menu.Target>{moreButton(hidden.length)}</Menu.Target>
            <Menu.Dropdown>
              <Menu.Label>More panels</Menu.Label>
              {hidden.map((panel) => (
                <Menu.Item key={panel.id} leftSection={panel.icon} onClick={() => onChange(panel.id)}>
                  {panel.label}
                </Menu.Item>
              ))}
            </Menu.Dropdown>
          </Menu>
        ) : null}
      </Group>
      {/* Never seen or reached: only measured. */}
      <Box ref={measureRef} aria-hidden inert style={{ position: 'absolute', top: 0, left: 0, visibility: 'hidden', pointerEvents: 'none', display: 'flex', whiteSpace: 'nowrap' }}>
        {panels.flatMap((panel) => [
          <PanelTab key={`label-${panel.id}`} panel={panel} style="labels" measure={`label-${panel.id}`} />,
          <PanelTab key={`icon-${panel.id}`} panel={panel} style="icons" measure={`icon-${panel.id}`} />,
          <PanelTab key={`named-${panel.id}`} panel={panel} style="named" measure={`named-${panel.id}`} />,
        ])}
        {/* With the group's gap before it. */}
        <Box pl={4} data-measure="more">
          {moreButton(panels.length, true)}
        </Box>
      </Box>
    </Box>
  );
}

function PanelBody({
  id,
  agent,
  runId,
  onOpenRun,
  templatePanel,
}: {
  id: PanelId;
  agent: Agent;
  runId: string | null;
  onOpenRun: (runId: string | null) => void;
  templatePanel: ReactNode;
}) {
  switch (id) {
    case 'template':
      return templatePanel;
    case 'memory':
      return <MemoryPanel agentId={agent.id} />;
    case 'tools':
      return <ToolsPanel agent={agent} />;
    case 'context':
      return <ContextPanel agentId={agent.id} />;
    case 'runs':
      return <RunsPanel agentId={agent.id} openRunId={runId} onOpenRun={onOpenRun} />;
    case 'archival':
      return <ArchivalPanel agentId={agent.id} />;
    case 'files':
      return <FilesPanel agentId={agent.id} />;
    case 'settings':
      return <SettingsPanel agent={agent} />;
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
      <Group gap={6} wrap="nowrap">
        <ShareAgentButton agentId={agent.id} />
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
    </Group>
  );
}

/** One agent: chat on the left, memory / tools / context / runs / archive / files / settings on the right (tabs on phones). */
export function AgentWorkspace() {
  const { agentId = '' } = useParams();
  return <AgentWorkspaceView agentId={agentId} />;
}

/**
 * The workspace of an agent. A template's editor gives its own header (in place of the agent's name) and its
 * template panel, which then takes the place of the agent's memory: the agent is the template's simulated agent.
 */
export function AgentWorkspaceView({ agentId, header, templatePanel }: { agentId: string; header?: ReactNode; templatePanel?: ReactNode }) {
  const agent = useAgent(agentId);
  const conversation = useConversationLocation();
  const chat = useChat(agentId, conversation.conversationId);
  const wide = useMediaQuery('(min-width: 62em)', true);
  const panels = templatePanel === undefined ? PANELS : TEMPLATE_PANELS;
  const firstPanel = panels[0]!.id;
  const isPanel = isPanelOf(panels);
  const location = usePanelLocation(wide ? firstPanel : 'chat', panels);
  if (agent.isPending) return <Loader m="xl" />;
  if (agent.error) return <ErrorNotice error={agent.error} title="This agent could not be opened" onRetry={() => void agent.refetch()} />;

  const height = 'calc(100dvh - var(--app-shell-header-offset, 60px) - 2 * var(--app-shell-padding, 16px))';
  const chatCard = (
    <Card withBorder radius="lg" p={0} h="100%" data-testid="chat-panel">
      <ChatPanel chat={chat} header={<ConversationBar agentId={agentId} conversationId={conversation.conversationId} onSelect={conversation.select} />} />
    </Card>
  );

  if (!wide) {
    return (
      <Stack gap={0} h={height}>
        {header ?? <AgentHeader agent={agent.data} />}
        <Tabs value={location.panel} onChange={(value) => location.openPanel(isPanel(value) ? value : 'chat')} keepMounted={false} variant="pills" radius="md">
          <ScrollArea type="never" mb="xs">
            {/* On a phone only the open tab shows its name; the others are icons (named for screen readers). */}
            <Tabs.List style={{ flexWrap: 'nowrap' }}>
              {[{ id: 'chat' as const, label: 'Chat', icon: <IconMessageCircle size={16} /> }, ...panels].map((item) => (
                <Tabs.Tab key={item.id} value={item.id} leftSection={item.icon} aria-label={item.label} px="sm">
                  {location.panel === item.id ? item.label : null}
                </Tabs.Tab>
              ))}
            </Tabs.List>
          </ScrollArea>
        </Tabs>
        <Box style={{ flex: 1, minHeight: 0 }}>
          {location.panel === 'chat' ? (
            chatCard
          ) : (
            <ScrollArea h="100%" offsetScrollbars="present">
              <PanelBody id={location.panel} agent={agent.data} runId={location.runId} onOpenRun={location.openRun} templatePanel={templatePanel} />
            </ScrollArea>
          )}
        </Box>
      </Stack>
    );
  }

  // Wide, the chat is always beside the panels: a `chat` left in the address from a phone opens the first panel.
  const panel = location.panel === 'chat' ? firstPanel : location.panel;
  return (
    <Stack gap={0} h={height}>
      {header ?? <AgentHeader agent={agent.data} />}
      <Box style={{ flex: 1, minHeight: 0 }}>
        <SplitPane
          id="ade"
          defaultLeft={60}
          left={chatCard}
          right={
            <Card withBorder radius="lg" p={0} h="100%">
              <Tabs value={panel} onChange={(value) => location.openPanel(isPanel(value) ? value : firstPanel)} keepMounted={false} h="100%" style={{ display: 'flex', flexDirection: 'column' }}>
                <PanelTabs value={panel} onChange={location.openPanel} panels={panels} />
                <ScrollArea style={{ flex: 1 }} p="sm" data-testid="side-panel">
                  <PanelBody id={panel} agent={agent.data} runId={location.runId} onOpenRun={location.openRun} templatePanel={templatePanel} />
                </ScrollArea>
              </Tabs>
            </Card>
          }
        />
      </Box>
    </Stack>
  );
}
