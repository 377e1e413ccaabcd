import type { ReactNode } from 'react';
import { ActionIcon, Alert, Button, CopyButton, Group, Stack, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { IconAlertTriangle, IconCheck, IconChevronLeft, IconChevronRight, IconCopy } from '@tabler/icons-react';
import { errorMessage } from '../api/errors.js';

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

/** The API's own error message, with a retry when there is something to retry. */
export function ErrorNotice({ error, title = 'Something went wrong', onRetry }: { error: unknown; title?: string; onRetry?: () => void }) {
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
