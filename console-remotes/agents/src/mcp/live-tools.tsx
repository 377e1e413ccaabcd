import { Badge, Group, Stack, Text, Tooltip } from '@engram/console-kit';
import type { LiveMcpTool, McpToolHealth } from './mcp-api.js';

const HEALTH: Record<McpToolHealth['status'], { color: string; label: string }> = {
  STRICT_COMPLIANT: { color: 'teal', label: 'strict' },
  NON_STRICT_ONLY: { color: 'blue', label: 'non-strict' },
  INVALID: { color: 'red', label: 'invalid schema' },
  UNREACHABLE: { color: 'orange', label: 'unreachable' },
};

/** How usable a tool's input schema is: strict mode, only without it, or not at all (the reasons on hover). */
export function HealthBadge({ health }: { health: McpToolHealth }) {
  const { color, label } = HEALTH[health.status];
  const badge = (
    <Badge size="xs" variant="light" color={color} tt="none">
      {label}
    </Badge>
  );
  return health.reasons.length ? (
    <Tooltip label={health.reasons.join('; ')} multiline w={320}>
      {badge}
    </Tooltip>
  ) : (
    badge
  );
}

/** What a server answered when asked for its tools: a connection check. */
export function LiveTools({ tools }: { tools: LiveMcpTool[] }) {
  return (
    <Stack gap={6} data-testid="mcp-live-tools">
      <Text size="sm" c="teal" fw={600}>
        Connected: {tools.length} tool{tools.length === 1 ? '' : 's'}
      </Text>
      {tools.map((tool) => (
        <Group key={tool.name} gap="xs" wrap="nowrap" data-testid="mcp-live-tool">
          <Text size="sm" ff="monospace" fw={600}>
            {tool.name}
          </Text>
          <HealthBadge health={tool.health} />
          <Text size="xs" c="dimmed" truncate>
            {tool.description}
          </Text>
        </Group>
      ))}
    </Stack>
  );
}
