import { ActionIcon, Button, Group, Stack, Text, TextInput, Tooltip } from '@engram/console-kit';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import type { NamedValue } from './server-draft.js';

/**
 * Name/value rows (environment variables, headers). Values are secrets: typed here, never shown back by the
 * API. `errors` are keyed by row index.
 */
export function NamedValueRows({
  label,
  nameLabel,
  rows,
  onChange,
  errors,
}: {
  label: string;
  nameLabel: string;
  rows: NamedValue[];
  onChange: (rows: NamedValue[]) => void;
  errors: Record<number, string | undefined>;
}) {
  const set = (index: number, change: Partial<NamedValue>) => onChange(rows.map((row, at) => (at === index ? { ...row, ...change } : row)));
  return (
    <Stack gap={6}>
      <Group justify="space-between">
        <Text size="sm" fw={500}>
          {label}
        </Text>
        <Button size="compact-xs" variant="subtle" leftSection={<IconPlus size={12} />} onClick={() => onChange([...rows, { name: '', value: '' }])}>
          Add
        </Button>
      </Group>
      {rows.map((row, index) => (
        <Group key={index} gap="xs" align="flex-start" wrap="nowrap">
          <TextInput
            size="xs"
            style={{ flex: 1 }}
            placeholder={nameLabel}
            aria-label={`${label}: ${nameLabel} ${index + 1}`}
            value={row.name}
            onChange={(event) => set(index, { name: event.currentTarget.value })}
            error={errors[index]}
            ff="monospace"
          />
          <TextInput
            size="xs"
            style={{ flex: 1 }}
            type="password"
            autoComplete="off"
            placeholder="Value"
            aria-label={`${label}: value ${index + 1}`}
            value={row.value}
            onChange={(event) => set(index, { value: event.currentTarget.value })}
          />
          <Tooltip label="Remove">
            <ActionIcon variant="subtle" color="gray" mt={2} aria-label={`Remove ${label.toLowerCase()} ${index + 1}`} onClick={() => onChange(rows.filter((_, at) => at !== index))}>
              <IconTrash size={14} />
            </ActionIcon>
          </Tooltip>
        </Group>
      ))}
    </Stack>
  );
}
