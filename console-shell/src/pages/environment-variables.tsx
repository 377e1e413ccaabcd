import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Button,
  Card,
  Code,
  consoleApi,
  ErrorNotice,
  Group,
  Modal,
  PageHeader,
  Pager,
  PasswordInput,
  queryKeys,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  Tooltip,
  useDebouncedValue,
  useFormatters,
  useValidatedSubmit,
  type EnvironmentVariable,
} from '@engram/console-kit';
import { IconPencil, IconPlus, IconSearch, IconTrash, IconVariable } from '@tabler/icons-react';

const PAGE_SIZE = 20;

/**
 * Adds a variable, or (with `variable`) sets a new value for an existing one: values are write-only,
 * so editing means replacing the value, never reading it.
 */
function VariableModal({ opened, variable, onClose }: { opened: boolean; variable?: EnvironmentVariable | undefined; onClose: () => void }) {
  const [values, setValues] = useState({ key: variable?.key ?? '', value: '' });
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: () => (variable ? consoleApi.setEnvironmentVariable(values) : consoleApi.createEnvironmentVariable(values)),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.environmentVariables });
      close();
    },
  });
  const { errors, setErrors, onSubmit } = useValidatedSubmit('environmentVariable', values, () => save.mutate());
  const close = () => {
    setValues({ key: variable?.key ?? '', value: '' });
    setErrors({});
    save.reset();
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title={variable ? `Set ${variable.key}` : 'Add an environment variable'} centered>
      <form onSubmit={onSubmit} noValidate>
        <Stack>
          {save.error ? <ErrorNotice error={save.error} title={variable ? 'The value was not saved' : 'The variable was not added'} /> : null}
          <TextInput
            label="Key"
            description="Letters, digits and underscores, e.g. WEATHER_API_KEY."
            placeholder="WEATHER_API_KEY"
            value={values.key}
            onChange={(event) => setValues({ ...values, key: event.currentTarget.value })}
            error={errors.key}
            readOnly={Boolean(variable)}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            data-autofocus={variable ? undefined : true}
          />
          <PasswordInput
            label={variable ? 'New value' : 'Value'}
            description="Tools read it at run time. It is stored encrypted and never shown again."
            value={values.value}
            onChange={(event) => setValues({ ...values, value: event.currentTarget.value })}
            error={errors.value}
            autoComplete="off"
            data-autofocus={variable ? true : undefined}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              {variable ? 'Save value' : 'Add variable'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function DeleteVariableModal({ variable, onClose }: { variable: EnvironmentVariable; onClose: () => void }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => consoleApi.deleteEnvironmentVariable(variable.id),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.environmentVariables });
      onClose();
    },
  });
  return (
    <Modal opened onClose={onClose} title="Delete environment variable" centered>
      <Stack>
        {remove.error ? <ErrorNotice error={remove.error} title="The variable was not deleted" /> : null}
        <Text size="sm">
          Delete <Code>{variable.key}</Code>? Tools that read it no longer find it. This cannot be undone.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
            Delete variable
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

export function EnvironmentVariablesPage() {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 250);
  const [offset, setOffset] = useState(0);
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<EnvironmentVariable | null>(null);
  const [deleting, setDeleting] = useState<EnvironmentVariable | null>(null);
  const format = useFormatters();
  const variables = useQuery({
    queryKey: [...queryKeys.environmentVariables, debounced, offset],
    queryFn: () => consoleApi.environmentVariables({ search: debounced || undefined, offset, limit: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  const list = variables.data?.environmentVariables ?? [];
  return (
    <>
      <PageHeader
        title="Environment variables"
        description="Secrets and settings every tool in this organization can read when it runs."
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)}>
            Add variable
          </Button>
        }
      />
      <TextInput
        placeholder="Search by key"
        leftSection={<IconSearch size={16} />}
        value={search}
        onChange={(event) => {
          setSearch(event.currentTarget.value);
          setOffset(0);
        }}
        maw={420}
        mb="lg"
        aria-label="Search environment variables"
      />
      {variables.error ? <ErrorNotice error={variables.error} onRetry={() => void variables.refetch()} /> : null}
      <Card withBorder radius="lg" p={0}>
        {variables.isPending ? (
          <Stack p="md">
            <Skeleton h={20} />
            <Skeleton h={20} />
          </Stack>
        ) : list.length === 0 ? (
          <Stack align="center" p="xl" gap="xs">
            <IconVariable size={28} />
            <Text fw={600}>{debounced ? 'No variable matches your search' : 'No environment variables yet'}</Text>
            <Text size="sm" c="dimmed" ta="center">
              {debounced ? 'Try another key.' : 'Add API keys and settings your tools need, instead of writing them into the code.'}
            </Text>
          </Stack>
        ) : (
          <Table.ScrollContainer minWidth={0}>
            <Table verticalSpacing="sm" horizontalSpacing="md" highlightOnHover data-testid="environment-variables-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Key</Table.Th>
                  <Table.Th visibleFrom="sm">Value</Table.Th>
                  <Table.Th visibleFrom="xs">Updated</Table.Th>
                  <Table.Th w={90} />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((variable) => (
                  <Table.Tr key={variable.id} data-testid="environment-variable-row">
                    <Table.Td>
                      <Code style={{ wordBreak: 'break-all' }}>{variable.key}</Code>
                    </Table.Td>
                    <Table.Td visibleFrom="sm">
                      <Text size="sm" c="dimmed">
                        ••••••••
                      </Text>
                    </Table.Td>
                    <Table.Td visibleFrom="xs">
                      <Text size="sm" c="dimmed">
                        {format.relative(variable.updatedAt)}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Group gap={4} wrap="nowrap" justify="flex-end">
                        <Tooltip label="Set a new value">
                          <ActionIcon variant="subtle" color="gray" aria-label={`Set ${variable.key}`} onClick={() => setEditing(variable)}>
                            <IconPencil size={16} />
                          </ActionIcon>
                        </Tooltip>
                        <Tooltip label="Delete variable">
                          <ActionIcon variant="subtle" color="red" aria-label={`Delete ${variable.key}`} onClick={() => setDeleting(variable)}>
                            <IconTrash size={16} />
                          </ActionIcon>
                        </Tooltip>
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Card>
      <Pager offset={offset} limit={PAGE_SIZE} hasNextPage={variables.data?.hasNextPage ?? false} onChange={setOffset} />
      <VariableModal opened={adding} onClose={() => setAdding(false)} />
      {editing ? <VariableModal key={editing.id} opened variable={editing} onClose={() => setEditing(null)} /> : null}
      {deleting ? <DeleteVariableModal variable={deleting} onClose={() => setDeleting(null)} /> : null}
    </>
  );
}
