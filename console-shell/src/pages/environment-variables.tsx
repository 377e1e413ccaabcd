import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import {
  ActionIcon,
  Button,
  Code,
  consoleApi,
  ErrorNotice,
  Group,
  Modal,
  PageHeader,
  PasswordInput,
  queryKeys,
  Table,
  Text,
  TextInput,
  Tooltip,
  useFormatters,
  useMemberAccess,
  useValidatedSubmit,
  type EnvironmentVariable,
} from '@engram/console-kit';
import { IconPencil, IconPlus, IconTrash, IconVariable } from '@tabler/icons-react';
import { Permitted, RoleNotice } from '../layout/access.js';
import { ConfirmDialog, ModalForm, useDialogMutation } from '../layout/dialogs.js';
import { bindFields } from '../layout/form-fields.js';
import { EmptyTableState, PagedTable, SearchField, usePagedSearch } from './page-scaffold.js';

const PAGE_SIZE = 20;

/**
 * Adds a variable, or (with `variable`) sets a new value for an existing one: values are write-only,
 * so editing means replacing the value, never reading it.
 */
function VariableModal({ opened, variable, onClose }: { opened: boolean; variable?: EnvironmentVariable | undefined; onClose: () => void }) {
  const blank = { key: variable?.key ?? '', value: '' };
  const [values, setValues] = useState(blank);
  const save = useDialogMutation(
    () => (variable ? consoleApi.setEnvironmentVariable(values) : consoleApi.createEnvironmentVariable(values)),
    queryKeys.environmentVariables,
    // Saved: the values passed validation (no errors to clear) and the save succeeded, so only the values are cleared.
    () => {
      setValues(blank);
      onClose();
    },
  );
  const { errors, setErrors, onSubmit } = useValidatedSubmit('environmentVariable', values, () => save.mutate());
  const field = bindFields(values, setValues, errors);
  const close = () => {
    setValues(blank);
    setErrors({});
    save.reset();
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title={variable ? `Set ${variable.key}` : 'Add an environment variable'} centered>
      <ModalForm
        onSubmit={onSubmit}
        mutation={save}
        failureTitle={variable ? 'The value was not saved' : 'The variable was not added'}
        submitLabel={variable ? 'Save value' : 'Add variable'}
        onCancel={close}
      >
        <TextInput
          label="Key"
          description="Letters, digits and underscores, e.g. WEATHER_API_KEY."
          placeholder="WEATHER_API_KEY"
          {...field('key')}
          readOnly={Boolean(variable)}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          data-autofocus={variable ? undefined : true}
        />
        <PasswordInput
          label={variable ? 'New value' : 'Value'}
          description="Tools read it at run time. It is stored encrypted and never shown again."
          {...field('value')}
          autoComplete="off"
          data-autofocus={variable ? true : undefined}
        />
      </ModalForm>
    </Modal>
  );
}

function DeleteVariableModal({ variable, onClose }: { variable: EnvironmentVariable; onClose: () => void }) {
  const remove = useDialogMutation(() => consoleApi.deleteEnvironmentVariable(variable.id), queryKeys.environmentVariables, onClose);
  return (
    <ConfirmDialog
      title="Delete environment variable"
      mutation={remove}
      failureTitle="The variable was not deleted"
      confirmLabel="Delete variable"
      onConfirm={() => remove.mutate()}
      onClose={onClose}
    >
      Delete <Code>{variable.key}</Code>? Tools that read it no longer find it. This cannot be undone.
    </ConfirmDialog>
  );
}

/** The organization's variables, for members whose role manages them. */
function VariablesTable({ onEdit, onDelete }: { onEdit: (variable: EnvironmentVariable) => void; onDelete: (variable: EnvironmentVariable) => void }) {
  const { debounced, offset, setOffset, searchField } = usePagedSearch();
  const format = useFormatters();
  const variables = useQuery({
    queryKey: [...queryKeys.environmentVariables, debounced, offset],
    queryFn: () => consoleApi.environmentVariables({ search: debounced || undefined, offset, limit: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  const list = variables.data?.environmentVariables ?? [];
  return (
    <>
      <SearchField {...searchField} placeholder="Search by key" label="Search environment variables" />
      {variables.error ? <ErrorNotice error={variables.error} onRetry={() => void variables.refetch()} /> : null}
      <PagedTable
        testId="environment-variables-table"
        highlightOnHover
        loading={variables.isPending}
        empty={
          list.length === 0 ? (
            <EmptyTableState
              icon={<IconVariable size={28} />}
              title={debounced ? 'No variable matches your search' : 'No environment variables yet'}
              description={debounced ? 'Try another key.' : 'Add API keys and settings your tools need, instead of writing them into the code.'}
            />
          ) : null
        }
        head={
          <>
            <Table.Th>Key</Table.Th>
            <Table.Th visibleFrom="sm">Value</Table.Th>
            <Table.Th visibleFrom="xs">Updated</Table.Th>
            <Table.Th w={90} />
          </>
        }
        page={{ offset, limit: PAGE_SIZE, hasNextPage: variables.data?.hasNextPage ?? false, onChange: setOffset }}
      >
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
                  <ActionIcon variant="subtle" color="gray" aria-label={`Set ${variable.key}`} onClick={() => onEdit(variable)}>
                    <IconPencil size={16} />
                  </ActionIcon>
                </Tooltip>
                <Tooltip label="Delete variable">
                  <ActionIcon variant="subtle" color="red" aria-label={`Delete ${variable.key}`} onClick={() => onDelete(variable)}>
                    <IconTrash size={16} />
                  </ActionIcon>
                </Tooltip>
              </Group>
            </Table.Td>
          </Table.Tr>
        ))}
      </PagedTable>
    </>
  );
}

export function EnvironmentVariablesPage() {
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<EnvironmentVariable | null>(null);
  const [deleting, setDeleting] = useState<EnvironmentVariable | null>(null);
  const access = useMemberAccess();
  return (
    <>
      <PageHeader
        title="Environment variables"
        description="Secrets and settings every tool in this organization can read when it runs."
        actions={
          <Permitted permission="manage_environment_variables" action="manage environment variables">
            <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)}>
              Add variable
            </Button>
          </Permitted>
        }
      />
      {access.can('manage_environment_variables') ? (
        <VariablesTable onEdit={setEditing} onDelete={setDeleting} />
      ) : access.known ? (
        <RoleNotice action="see or change this organization's environment variables" />
      ) : null}
      <VariableModal opened={adding} onClose={() => setAdding(false)} />
      {editing ? <VariableModal key={editing.id} opened variable={editing} onClose={() => setEditing(null)} /> : null}
      {deleting ? <DeleteVariableModal variable={deleting} onClose={() => setDeleting(null)} /> : null}
    </>
  );
}
