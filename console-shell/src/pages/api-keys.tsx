import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Alert,
  Button,
  Card,
  Code,
  consoleApi,
  CopyField,
  ErrorNotice,
  Group,
  Modal,
  PageHeader,
  Pager,
  queryKeys,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  Tooltip,
  useFormatters,
  useValidatedSubmit,
  type ApiKey,
  type CreatedApiKey,
} from '@engram/console-kit';
import { IconAlertTriangle, IconKey, IconPlus, IconTrash } from '@tabler/icons-react';

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
        <form onSubmit={onSubmit} noValidate>
          <Stack>
            {create.error ? <ErrorNotice error={create.error} title="The key was not created" /> : null}
            <TextInput
              label="Name"
              description="So you recognise it later, e.g. where it is used."
              placeholder="Production backend"
              value={name}
              onChange={(event) => setName(event.currentTarget.value)}
              error={errors.name}
              data-autofocus
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending}>
                Create key
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

function DeleteKeyModal({ apiKey, onClose }: { apiKey: ApiKey | null; onClose: () => void }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: (id: string) => consoleApi.deleteApiKey(id),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys });
      onClose();
    },
  });
  return (
    <Modal opened={apiKey !== null} onClose={onClose} title="Delete API key" centered>
      <Stack>
        {remove.error ? <ErrorNotice error={remove.error} title="The key was not deleted" /> : null}
        <Text size="sm">
          Delete <b>{apiKey?.name}</b>? Anything using it stops working at once. This cannot be undone.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color="red" loading={remove.isPending} onClick={() => apiKey && remove.mutate(apiKey.id)}>
            Delete key
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

export function ApiKeysPage() {
  const [offset, setOffset] = useState(0);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<ApiKey | null>(null);
  const format = useFormatters();
  const keys = useQuery({
    queryKey: [...queryKeys.apiKeys, offset],
    queryFn: () => consoleApi.apiKeys({ offset, limit: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys for the /v1 agent API. Each acts with your role in this organization."
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
            Create API key
          </Button>
        }
      />
      {keys.error ? <ErrorNotice error={keys.error} onRetry={() => void keys.refetch()} /> : null}
      <Card withBorder radius="lg" p={0}>
        {keys.isPending ? (
          <Stack p="md">
            <Skeleton h={20} />
            <Skeleton h={20} />
          </Stack>
        ) : keys.data?.apiKeys.length === 0 ? (
          <Stack align="center" p="xl" gap="xs">
            <IconKey size={28} />
            <Text fw={600}>No API keys yet</Text>
            <Text size="sm" c="dimmed">
              Create one to call the agent API from your code.
            </Text>
          </Stack>
        ) : (
          <Table.ScrollContainer minWidth={0}>
            <Table verticalSpacing="sm" horizontalSpacing="md" highlightOnHover data-testid="api-keys-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Key</Table.Th>
                  <Table.Th visibleFrom="sm">Created</Table.Th>
                  <Table.Th w={60} />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
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
                      <Tooltip label="Delete key">
                        <ActionIcon variant="subtle" color="red" aria-label={`Delete ${key.name}`} onClick={() => setDeleting(key)}>
                          <IconTrash size={16} />
                        </ActionIcon>
                      </Tooltip>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Card>
      <Pager offset={offset} limit={PAGE_SIZE} hasNextPage={keys.data?.hasNextPage ?? false} onChange={setOffset} />
      <CreateKeyModal opened={creating} onClose={() => setCreating(false)} />
      <DeleteKeyModal apiKey={deleting} onClose={() => setDeleting(null)} />
    </>
  );
}
