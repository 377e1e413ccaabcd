import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import {
  Alert,
  Badge,
  Button,
  Card,
  ErrorNotice,
  Group,
  Link,
  PageHeader,
  SegmentedControl,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  useDebouncedValue,
  useNavigate,
  useV1,
} from '@engram/console-kit';
import { IconPlus, IconSearch, IconTool, IconWorldSearch } from '@tabler/icons-react';
import { usePermissions } from '../access/use-permissions.js';
import { useConsoleSettings } from '../queries.js';
import { CursorPager, useCursorPages } from '../workspace/cursor-pager.js';
import { toolKeys } from './tool-keys.js';
import { listTools, type ToolListFilter } from './tools-api.js';

const PAGE = 25;

type Kind = 'custom' | 'mcp' | 'built-in' | 'all';

const FILTERS: Record<Kind, ToolListFilter> = {
  custom: { tool_types: ['custom'] },
  mcp: { tool_types: ['external_mcp'] },
  'built-in': { return_only_letta_tools: true },
  all: {},
};

/** One filter's tools, page by page (a new filter is a new list, from its first page). */
function ToolTable({ filter, kind, searched }: { filter: ToolListFilter; kind: Kind; searched: boolean }) {
  const v1 = useV1();
  const navigate = useNavigate();
  const pages = useCursorPages();
  const tools = useQuery({
    queryKey: toolKeys.list(v1, filter, pages.after),
    queryFn: () => listTools(filter, { after: pages.after, limit: PAGE }),
    placeholderData: keepPreviousData,
  });
  const shown = tools.data ?? [];
  const last = shown.at(-1);
  if (tools.error) return <ErrorNotice error={tools.error} onRetry={() => void tools.refetch()} />;
  if (tools.isPending) {
    return (
      <Stack>
        <Skeleton h={44} radius="md" />
        <Skeleton h={44} radius="md" />
      </Stack>
    );
  }
  if (shown.length === 0 && pages.index === 0) {
    return (
      <Card withBorder radius="lg" p="xl">
        <Stack align="center" gap="xs">
          <IconTool size={32} stroke={1.4} />
          <Text fw={600}>{searched ? 'No tool matches this name' : kind === 'custom' ? 'No custom tools yet' : 'No tools of this kind'}</Text>
          <Text size="sm" c="dimmed" ta="center" maw={440}>
            {kind === 'custom' && !searched ? 'Write a function in Python or TypeScript; the model calls it with arguments that follow its schema.' : 'Try another name or kind.'}
          </Text>
        </Stack>
      </Card>
    );
  }
  return (
    <>
      <Card withBorder radius="lg" p={0}>
        <Table.ScrollContainer minWidth={640}>
          <Table verticalSpacing="sm" horizontalSpacing="md" highlightOnHover data-testid="tools-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Kind</Table.Th>
                <Table.Th>Description</Table.Th>
                <Table.Th>Tags</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {shown.map((tool) => (
                <Table.Tr key={tool.id} style={{ cursor: 'pointer' }} onClick={() => void navigate(tool.id)} data-testid="tool-row">
                  <Table.Td>
                    <Text size="sm" fw={600} ff="monospace" component={Link} to={tool.id} onClick={(event) => event.stopPropagation()} c="var(--mantine-color-text)">
                      {tool.name}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4} wrap="nowrap">
                      <Badge size="sm" variant="default" tt="none">
                        {tool.tool_type.replace(/^letta_/, '')}
                      </Badge>
                      {tool.source_type && tool.tool_type === 'custom' ? (
                        <Badge size="sm" variant="light" tt="none">
                          {tool.source_type}
                        </Badge>
                      ) : null}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" c="dimmed" lineClamp={2} maw={520}>
                      {tool.description}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4}>
                      {tool.tags.slice(0, 3).map((tag) => (
                        <Badge key={tag} size="xs" variant="outline" tt="none">
                          {tag}
                        </Badge>
                      ))}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Card>
      <CursorPager pages={pages} pageSize={PAGE} shown={shown.length} nextCursor={shown.length === PAGE && last ? last.id : null} settled={!tools.isPlaceholderData} />
    </>
  );
}

const SEARCH_PROVIDER_NAMES = { exa: 'Exa', tavily: 'Tavily', brave: 'Brave Search', searxng: 'SearXNG' } as const;

/** Whether the built-in web_search tool can search here: the operator configures its provider on the server. */
function WebSearchStatus() {
  const settings = useConsoleSettings();
  if (!settings.data) return null;
  const provider = settings.data.webSearch.provider;
  return (
    <Alert variant="light" color={provider ? 'teal' : 'gray'} icon={<IconWorldSearch size={18} />} mb="md" data-testid="web-search-status">
      {provider
        ? `web_search searches through ${SEARCH_PROVIDER_NAMES[provider]}. fetch_webpage reads public pages; run_code runs python, JavaScript and TypeScript in the tool sandbox.`
        : 'web_search is off on this server: its operator enables it by setting EXA_API_KEY, TAVILY_API_KEY, BRAVE_SEARCH_API_KEY or SEARXNG_URL. Until then the tool answers the agent an error saying so.'}
    </Alert>
  );
}

/** The organization's tools by kind and name; custom tools open in the editor, the others show their schema. */
export function ToolsPage() {
  const { can } = usePermissions();
  const [kind, setKind] = useState<Kind>('custom');
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 250);
  const filter = { ...FILTERS[kind], ...(debounced ? { search: debounced } : {}) };

  return (
    <>
      <PageHeader
        title="Tools"
        description="Custom tools in Python or TypeScript, the built-in tools, and tools registered from MCP servers. Agents attach them by id."
        actions={
          can('createTool') ? (
            <Button component={Link} to="new" leftSection={<IconPlus size={16} />}>
              New tool
            </Button>
          ) : null
        }
      />
      <Group gap="sm" mb="lg" align="flex-end">
        <SegmentedControl
          aria-label="Kind of tool"
          value={kind}
          onChange={(value) => setKind(value as Kind)}
          data={[
            { value: 'custom', label: 'Custom' },
            { value: 'mcp', label: 'MCP' },
            { value: 'built-in', label: 'Built-in' },
            { value: 'all', label: 'All' },
          ]}
        />
        <TextInput
          placeholder="Search by name"
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          w={{ base: '100%', sm: 280 }}
          aria-label="Search tools"
        />
      </Group>
      {kind === 'built-in' ? <WebSearchStatus /> : null}
      <ToolTable key={JSON.stringify(filter)} filter={filter} kind={kind} searched={debounced !== ''} />
    </>
  );
}
