import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Alert,
  Button,
  Code,
  consoleApi,
  CopyField,
  ErrorNotice,
  Group,
  Modal,
  PageHeader,
  queryKeys,
  Stack,
  Table,
  Text,
  TextInput,
  useFormatters,
  useMemberAccess,
  useValidatedSubmit,
  type ApiKey,
  type CreatedApiKey,
} from '@engram/console-kit';
import { IconAlertTriangle, IconKey, IconPlus, IconTrash } from '@tabler/icons-react';
import { Permitted, RoleNotice } from '../layout/access.js';
import { ConfirmDialog, ModalForm, useDialogMutation } from '../layout/dialogs.js';
import { EmptyTableState, PagedTable } from './page-scaffold.js';

const PAGE_SIZE = 20;

function CreateKeyModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const [name, setName] = useState('');
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: () => consoleApi.createApiKey({ name: name.trim() }),
    onSuccess: async (key) => {
      setCreated(key);
      await queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys });
    },
  });
  const { errors, onSubmit } = useValidatedSubmit('apiKey', { name }, () => create.mutate());
  const close = () => {
    setName('');
    setCreated(null);
    create.reset();
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title={created ? 'Your new API key' : 'Create an API key'} centered size="lg">
      {created ? (
        <Stack data-testid="created-api-key">
          <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} />}>
            Copy this key now. It is shown only once; Engram keeps only a hash of it.
          </Alert>
          <CopyField label={created.name} value={created.apiKey} />
          <Text size="sm" c="dimmed">
            Use it as <Code>Authorization: Bearer …</Code> with the <Code>/v1</Code> API.
          </Text>
          <Group justify="flex-end">
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <ModalForm onSubmit={onSubmit} mutation={create} failureTitle="The key was not created" submitLabel="Create key" onCancel={close}>
          <TextInput
            label="Name"
            description="So you recognise it later, e.g. where it is used."
            placeholder="Production backend"
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            error={errors.name}
            data-autofocus
          />
        </ModalForm>
      )}
    </Modal>
  );
}

function DeleteKeyModal({ apiKey, onClose }: { apiKey: ApiKey | null; onClose: () => void }) {
  const remove = useDialogMutation((id: string) => consoleApi.deleteApiKey(id), queryKeys.apiKeys, onClose);
  return (
    <ConfirmDialog
      opened={apiKey !== null}
      title="Delete API key"
      mutation={remove}
      failureTitle="The key was not deleted"
      confirmLabel="Delete key"
      onConfirm={() => apiKey && remove.mutate(apiKey.id)}
      onClose={onClose}
    >
      Delete <b>{apiKey?.name}</b>? Anything using it stops working at once. This cannot be undone.
    </ConfirmDialog>
  );
}

/** The organization's keys, for members whose role may see them. */
function ApiKeysTable({ onDelete }: { onDelete: (key: ApiKey) => void }) {
  const [offset, setOffset] = useState(0);
  const format = useFormatters();
  const keys = useQuery({
    queryKey: [...queryKeys.apiKeys, offset],
    queryFn: () => consoleApi.apiKeys({ offset, limit: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      {keys.error ? <ErrorNotice error={keys.error} onRetry={() => void keys.refetch()} /> : null}
      <PagedTable
        testId="api-keys-table"
        highlightOnHover
        loading={keys.isPending}
        empty={
          keys.data?.apiKeys.length === 0 ? (
            <EmptyTableState icon={<IconKey size={28} />} title="No API keys yet" description="Create one to call the agent API from your code." />
          ) : null
        }
        head={
          <>
            <Table.Th>Name</Table.Th>
            <Table.Th>Key</Table.Th>
            <Table.Th visibleFrom="sm">Created</Table.Th>
            <Table.Th w={60} />
          </>
        }
        page={{ offset, limit: PAGE_SIZE, hasNextPage: keys.data?.hasNextPage ?? false, onChange: setOffset }}
      >
        {keys.data?.apiKeys.map((key) => (
          <Table.Tr key={key.id}>
            <Table.Td>
              <Text size="sm" fw={500}>
                {key.name}
              </Text>
            </Table.Td>
            <Table.Td>
              <Code style={{ whiteSpace: 'nowrap' }}>{key.keyPrefix}…</Code>
            </Table.Td>
            <Table.Td visibleFrom="sm">
              <Text size="sm" c="dimmed">
                {format.dateTime(key.createdAt)}
              </Text>
            </Table.Td>
            <Table.Td>
              <Permitted permission="delete_api_keys" action="delete API keys" label="Delete key">
                <ActionIcon variant="subtle" color="red" aria-label={`Delete ${key.name}`} onClick={() => onDelete(key)}>
                  <IconTrash size={16} />
                </ActionIcon>
              </Permitted>
            </Table.Td>
          </Table.Tr>
        ))}
      </PagedTable>
    </>
  );
}

export function ApiKeysPage() {
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<ApiKey | null>(null);
  const access = useMemberAccess();
  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys for the /v1 agent API. Each acts with your role in this organization."
        actions={
          <Permitted permission="create_api_keys" action="create API keys">
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              Create API key
            </Button>
          </Permitted>
        }
      />
      {access.can('read_api_keys') ? <ApiKeysTable onDelete={setDeleting} /> : access.known ? <RoleNotice action="see this organization's API keys" /> : null}
      <CreateKeyModal opened={creating} onClose={() => setCreating(false)} />
      <DeleteKeyModal apiKey={deleting} onClose={() => setDeleting(null)} />
    </>
  );
}
