import type { ReactNode } from 'react';
import { Link, useMatch } from 'react-router';
import { ActionIcon, Alert, Anchor, Button, Card, CopyButton, Group, Stack, Text, TextInput, ThemeIcon, Title, Tooltip } from '@mantine/core';
import { IconAlertTriangle, IconCheck, IconChevronLeft, IconChevronRight, IconCopy, IconGauge, IconSearch } from '@tabler/icons-react';
import { errorMessage, tierLimitOf } from '../api/errors.js';

/** The title row of a screen: title, one line of description, actions on the right. */
export function PageHeader({ title, description, actions }: { title: ReactNode; description?: ReactNode; actions?: ReactNode }) {
  return (
    <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm" mb="lg">
      <Stack gap={4} style={{ minWidth: 0 }}>
        <Title order={2} fz={{ base: 'h3', sm: 'h2' }}>
          {title}
        </Title>
        {description ? (
          <Text c="dimmed" size="sm">
            {description}
          </Text>
        ) : null}
      </Stack>
      {actions ? <Group gap="xs">{actions}</Group> : null}
    </Group>
  );
}

/**
 * A refusal by the organization's plan: what the plan allows, and where to raise it (the billing screen of the
 * project open now, or of the most recent one from the organization's own screens). Retrying would not help.
 */
function TierLimitNotice({ title, message }: { title: string; message: string }) {
  const project = useMatch('/projects/:projectSlug/*');
  const billing = project ? `/projects/${project.params.projectSlug}/billing` : '/billing';
  return (
    <Alert color="orange" variant="light" icon={<IconGauge size={18} />} title={title} role="alert" data-testid="tier-limit-notice">
      <Stack gap={4} align="flex-start">
        <Text size="sm" fw={500}>
          {message}.
        </Text>
        <Text size="sm">
          Your organization has reached this limit of its plan.{' '}
          <Anchor component={Link} to={billing} size="sm">
            See your plan and usage
          </Anchor>{' '}
          to upgrade, or remove something you no longer need.
        </Text>
      </Stack>
    </Alert>
  );
}

/** The API's own error message, with a retry when there is something to retry. */
export function ErrorNotice({ error, title = 'Something went wrong', onRetry }: { error: unknown; title?: string; onRetry?: () => void }) {
  const tierLimit = tierLimitOf(error);
  if (tierLimit) return <TierLimitNotice title={title} message={tierLimit.message.replace(/\.$/, '')} />;
  return (
    <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} title={title} role="alert">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{errorMessage(error)}</Text>
        {onRetry ? (
          <Button size="xs" variant="light" color="red" onClick={onRetry}>
            Try again
          </Button>
        ) : null}
      </Stack>
    </Alert>
  );
}

/** A read-only value with a copy button (API keys, ids). */
export function CopyField({ value, label, description }: { value: string; label?: string; description?: string }) {
  return (
    <TextInput
      label={label}
      description={description}
      value={value}
      readOnly
      styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
      onFocus={(event) => event.currentTarget.select()}
      rightSection={
        <CopyButton value={value} timeout={2000}>
          {({ copied, copy }) => (
            <Tooltip label={copied ? 'Copied' : 'Copy'} withArrow position="left">
              <ActionIcon color={copied ? 'teal' : 'gray'} variant="subtle" onClick={copy} aria-label={copied ? 'Copied' : 'Copy'}>
                {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
              </ActionIcon>
            </Tooltip>
          )}
        </CopyButton>
      }
    />
  );
}

/** Previous / next for offset-paged lists. */
export function Pager({
  offset,
  limit,
  hasNextPage,
  onChange,
  total,
}: {
  offset: number;
  limit: number;
  hasNextPage: boolean;
  onChange: (offset: number) => void;
  total?: number;
}) {
  if (offset === 0 && !hasNextPage) return null;
  const last = total !== undefined ? Math.min(offset + limit, total) : offset + limit;
  return (
    <Group justify="space-between" mt="md">
      <Text size="sm" c="dimmed">
        {offset + 1}–{last}
        {total !== undefined ? ` of ${total}` : ''}
      </Text>
      <Group gap="xs">
        <Button
          variant="default"
          size="xs"
          leftSection={<IconChevronLeft size={14} />}
          disabled={offset === 0}
          onClick={() => onChange(Math.max(0, offset - limit))}
        >
          Previous
        </Button>
        <Button variant="default" size="xs" rightSection={<IconChevronRight size={14} />} disabled={!hasNextPage} onClick={() => onChange(offset + limit)}>
          Next
        </Button>
      </Group>
    </Group>
  );
}

/** What a list shows with nothing in it: an icon, what is missing, and what to do about it. */
export function EmptyState({ icon, title, children }: { icon: ReactNode; title: ReactNode; children: ReactNode }) {
  return (
    <Card withBorder radius="lg" p="xl">
      <Stack align="center" gap="sm">
        <ThemeIcon size={52} radius="xl" variant="light">
          {icon}
        </ThemeIcon>
        <Text fw={600}>{title}</Text>
        <Text size="sm" c="dimmed" ta="center" maw={440}>
          {children}
        </Text>
      </Stack>
    </Card>
  );
}

/** The search-by-name box above a list. */
export function NameSearch({ value, onChange, label, mb }: { value: string; onChange: (value: string) => void; label: string; mb?: string }) {
  return (
    <TextInput
      placeholder="Search by name"
      leftSection={<IconSearch size={16} />}
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      w={{ base: '100%', sm: 320 }}
      mb={mb}
      aria-label={label}
    />
  );
}

/** One titled card of a screen, a region named by its title (so a reader, and a test, finds it by that title). */
export function Section({ title, testId, actions, children }: { title: string; testId: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <Card withBorder radius="md" padding="lg" data-testid={testId} component="section" aria-label={title}>
      <Group justify="space-between" mb="md" wrap="nowrap">
        <Text fw={600}>{title}</Text>
        {actions}
      </Group>
      {children}
    </Card>
  );
}
