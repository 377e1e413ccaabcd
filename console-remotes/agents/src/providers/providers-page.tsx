import { useState, type FormEvent } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Badge,
  Button,
  Card,
  Code,
  ErrorNotice,
  Group,
  Menu,
  Modal,
  PageHeader,
  PasswordInput,
  queryKeys,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  Tooltip,
  useFormatters,
  useV1,
  type V1Client,
} from '@engram/console-kit';
import { Select } from '@engram/console-kit/widgets';
import { IconCircleCheck, IconDots, IconKey, IconPlus, IconShieldCheck, IconTrash } from '@tabler/icons-react';
import { usePermissions } from '../access/use-permissions.js';
import { ConfirmDialog } from '../confirm-dialog.js';
import { agentKeys } from '../queries.js';
import { CursorPager, useCursorPages } from '../workspace/cursor-pager.js';
import { checkProviderKey, checkStoredProvider, createProvider, deleteProvider, listProviders, replaceProviderKey, type Provider, type ProviderConnection } from './providers-api.js';

const PAGE = 25;

const providerKeys = {
  all: (v1: V1Client) => [...queryKeys.v1(v1.organizationId), 'providers'] as const,
  page: (v1: V1Client, after: string | null) => [...providerKeys.all(v1), after] as const,
};

/** Types Engram knows the public endpoint of; any other needs its base URL (an OpenAI-compatible server). */
const KNOWN_ENDPOINTS: Record<string, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
  groq: 'https://api.groq.com/openai/v1',
  together: 'https://api.together.xyz/v1',
  deepseek: 'https://api.deepseek.com/v1',
  xai: 'https://api.x.ai/v1',
};

/** The provider types the API accepts. */
const PROVIDER_TYPES = [
  'openai', 'anthropic', 'groq', 'together', 'deepseek', 'xai', 'ollama', 'vllm', 'lmstudio_openai', 'azure', 'baseten', 'bedrock', 'cerebras',
  'fireworks', 'google_ai', 'google_vertex', 'hugging-face', 'minimax', 'mistral', 'moonshot', 'openrouter', 'sglang', 'zai',
];

type Draft = { name: string; providerType: string; apiKey: string; baseUrl: string; accessKey: string; region: string; apiVersion: string };

const EMPTY_DRAFT: Draft = { name: '', providerType: 'openai', apiKey: '', baseUrl: '', accessKey: '', region: '', apiVersion: '' };

function connectionOf(draft: Draft): ProviderConnection {
  return {
    provider_type: draft.providerType,
    api_key: draft.apiKey.trim(),
    ...(draft.baseUrl.trim() ? { base_url: draft.baseUrl.trim() } : {}),
    ...(draft.accessKey.trim() ? { access_key: draft.accessKey.trim() } : {}),
    ...(draft.region.trim() ? { region: draft.region.trim() } : {}),
    ...(draft.apiVersion.trim() ? { api_version: draft.apiVersion.trim() } : {}),
  };
}

function draftErrors(draft: Draft): Record<string, string> {
  const errors: Record<string, string> = {};
  if (draft.name.trim() === '') errors.name = 'Name the provider';
  else if (draft.name.includes('/')) errors.name = 'A provider name cannot contain "/"';
  if (draft.apiKey.trim() === '') errors.apiKey = 'Enter the API key';
  if (!KNOWN_ENDPOINTS[draft.providerType] && draft.baseUrl.trim() === '') errors.baseUrl = 'This type needs the URL of its server';
  return errors;
}

/** A new provider with its key: checked against the provider before it is added, if the user wants. */
function AddProviderModal({ onClose }: { onClose: () => void }) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const { can } = usePermissions();
  const [draft, setDraft] = useState<Draft>(EMPTY_DRAFT);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const update = (change: Partial<Draft>) => setDraft((current) => ({ ...current, ...change }));
  const valid = () => {
    const found = draftErrors(draft);
    setErrors(found);
    return Object.keys(found).length === 0;
  };
  const check = useMutation({ mutationFn: () => checkProviderKey(connectionOf(draft)) });
  const add = useMutation({
    mutationFn: () => createProvider(draft.name.trim(), connectionOf(draft)),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: providerKeys.all(v1) });
      // Its models are offered for agents from now on.
      await queryClient.invalidateQueries({ queryKey: agentKeys.models(v1) });
      onClose();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (valid()) add.mutate();
  };
  const knownEndpoint = KNOWN_ENDPOINTS[draft.providerType];
  return (
    <Modal opened onClose={onClose} title="Add a provider" size="lg">
      <form onSubmit={submit} noValidate aria-label="Add a provider">
        <Stack>
          {add.error ? <ErrorNotice error={add.error} title="The provider was not added" /> : null}
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <TextInput label="Name" description="Its models are named <name>/<model>." value={draft.name} onChange={(event) => update({ name: event.currentTarget.value })} error={errors.name} data-autofocus />
            <Select label="Type" data={PROVIDER_TYPES} value={draft.providerType} onChange={(value) => value && update({ providerType: value })} allowDeselect={false} searchable />
          </SimpleGrid>
          <PasswordInput label="API key" description="Stored encrypted; never shown again, only masked." value={draft.apiKey} onChange={(event) => update({ apiKey: event.currentTarget.value })} error={errors.apiKey} autoComplete="off" />
          <TextInput
            label="Base URL"
            description={knownEndpoint ? `Leave empty for ${knownEndpoint}` : 'An OpenAI-compatible server, like http://localhost:11434/v1'}
            value={draft.baseUrl}
            onChange={(event) => update({ baseUrl: event.currentTarget.value })}
            error={errors.baseUrl}
            ff="monospace"
          />
          {draft.providerType === 'bedrock' ? (
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
              <PasswordInput label="Access key" value={draft.accessKey} onChange={(event) => update({ accessKey: event.currentTarget.value })} autoComplete="off" />
              <TextInput label="Region" placeholder="us-east-1" value={draft.region} onChange={(event) => update({ region: event.currentTarget.value })} />
            </SimpleGrid>
          ) : null}
          {draft.providerType === 'azure' ? <TextInput label="API version" value={draft.apiVersion} onChange={(event) => update({ apiVersion: event.currentTarget.value })} /> : null}
          {check.error ? <ErrorNotice error={check.error} title="The key did not work" /> : null}
          {check.data && !check.isPending ? (
            <Group gap={6} c="teal" data-testid="provider-key-valid">
              <IconCircleCheck size={16} />
              <Text size="sm">The key works: the provider listed its models.</Text>
            </Group>
          ) : null}
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            {can('checkProvider') ? (
              <Button variant="light" leftSection={<IconShieldCheck size={16} />} loading={check.isPending} onClick={() => valid() && check.mutate()}>
                Check key
              </Button>
            ) : null}
            <Button type="submit" loading={add.isPending}>
              Add provider
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function ReplaceKeyModal({ provider, onClose }: { provider: Provider; onClose: () => void }) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const [apiKey, setApiKey] = useState('');
  const replace = useMutation({
    mutationFn: () => replaceProviderKey(provider.id, apiKey.trim()),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: providerKeys.all(v1) });
      onClose();
    },
  });
  return (
    <Modal opened onClose={onClose} title={`New key for ${provider.name}`}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (apiKey.trim()) replace.mutate();
        }}
        noValidate
      >
        <Stack>
          {replace.error ? <ErrorNotice error={replace.error} title="The key was not replaced" /> : null}
          <PasswordInput label="API key" value={apiKey} onChange={(event) => setApiKey(event.currentTarget.value)} autoComplete="off" data-autofocus />
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={replace.isPending} disabled={!apiKey.trim()}>
              Replace key
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function ProviderRow({ provider }: { provider: Provider }) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const format = useFormatters();
  const { can } = usePermissions();
  const [dialog, setDialog] = useState<'replace' | 'delete' | null>(null);
  const check = useMutation({ mutationFn: () => checkStoredProvider(provider.id) });
  const remove = useMutation({
    mutationFn: () => deleteProvider(provider.id),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: providerKeys.all(v1) });
      await queryClient.invalidateQueries({ queryKey: agentKeys.models(v1) });
      setDialog(null);
    },
  });
  const manageable = can('replaceProviderKey') || can('deleteProvider');
  return (
    <Table.Tr data-testid={`provider-${provider.name}`}>
      <Table.Td>
        <Text size="sm" fw={600}>
          {provider.name}
        </Text>
      </Table.Td>
      <Table.Td>
        <Badge size="sm" variant="light" tt="none">
          {provider.provider_type}
        </Badge>
      </Table.Td>
      <Table.Td>
        <Text size="xs" ff="monospace" c="dimmed" truncate maw={280}>
          {provider.base_url ?? KNOWN_ENDPOINTS[provider.provider_type] ?? '—'}
        </Text>
      </Table.Td>
      <Table.Td>
        <Code data-testid="provider-key">{provider.api_key ?? '—'}</Code>
      </Table.Td>
      <Table.Td>
        <Text size="xs" c="dimmed">
          {format.relative(provider.updated_at)}
        </Text>
      </Table.Td>
      <Table.Td>
        <Group gap={6} wrap="nowrap" justify="flex-end">
          {check.data && !check.isPending ? (
            <Badge size="sm" color="teal" variant="light" leftSection={<IconCircleCheck size={12} />} data-testid="provider-check-ok">
              Key works
            </Badge>
          ) : null}
          {check.error && !check.isPending ? (
            <Tooltip label={check.error.message} multiline w={320}>
              <Badge size="sm" color="red" variant="light" data-testid="provider-check-failed">
                Key refused
              </Badge>
            </Tooltip>
          ) : null}
          {can('checkProvider') ? (
            <Button size="compact-xs" variant="subtle" leftSection={<IconShieldCheck size={14} />} loading={check.isPending} onClick={() => check.mutate()}>
              Check
            </Button>
          ) : null}
          {manageable ? (
            <Menu position="bottom-end" withinPortal>
              <Menu.Target>
                <ActionIcon variant="subtle" color="gray" aria-label={`More for ${provider.name}`}>
                  <IconDots size={16} />
                </ActionIcon>
              </Menu.Target>
              <Menu.Dropdown>
                {can('replaceProviderKey') ? (
                  <Menu.Item leftSection={<IconKey size={14} />} onClick={() => setDialog('replace')}>
                    Replace key
                  </Menu.Item>
                ) : null}
                {can('deleteProvider') ? (
                  <Menu.Item color="red" leftSection={<IconTrash size={14} />} onClick={() => setDialog('delete')}>
                    Delete
                  </Menu.Item>
                ) : null}
              </Menu.Dropdown>
            </Menu>
          ) : null}
        </Group>
        {dialog === 'replace' ? <ReplaceKeyModal provider={provider} onClose={() => setDialog(null)} /> : null}
        {dialog === 'delete' ? (
          <ConfirmDialog title={`Delete ${provider.name}?`} confirmLabel="Delete provider" mutation={remove} onConfirm={() => remove.mutate()} onClose={() => setDialog(null)}>
            Its key is deleted, and agents using its models ({provider.name}/…) can no longer call them.
          </ConfirmDialog>
        ) : null}
      </Table.Td>
    </Table.Tr>
  );
}

/** The organization's own model providers (bring your own key): keys shown masked, checked, replaced, deleted. */
export function ProvidersPage() {
  const v1 = useV1();
  const { can, known } = usePermissions();
  const pages = useCursorPages();
  const [adding, setAdding] = useState(false);
  const providers = useQuery({
    queryKey: providerKeys.page(v1, pages.after),
    queryFn: () => listProviders({ after: pages.after, limit: PAGE }),
    placeholderData: keepPreviousData,
  });
  const shown = providers.data ?? [];
  const last = shown.at(-1);
  return (
    <>
      <PageHeader
        title="Providers"
        description="Model providers with your organization's own API keys. Their models are offered to agents as <name>/<model>."
        actions={
          can('addProvider') ? (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)}>
              Add provider
            </Button>
          ) : null
        }
      />
      {providers.error ? <ErrorNotice error={providers.error} onRetry={() => void providers.refetch()} /> : null}
      {providers.isPending ? (
        <Skeleton h={96} radius="lg" />
      ) : shown.length === 0 && pages.index === 0 ? (
        <Card withBorder radius="lg" p="xl">
          <Stack align="center" gap="xs">
            <IconKey size={32} stroke={1.4} />
            <Text fw={600}>No providers of your own</Text>
            <Text size="sm" c="dimmed" ta="center" maw={460}>
              Agents use the providers this Engram server is configured with. Add one with your own key to use its models{known && !can('addProvider') ? ' (an admin can)' : ''}.
            </Text>
          </Stack>
        </Card>
      ) : (
        <Card withBorder radius="lg" p={0}>
          <Table.ScrollContainer minWidth={720}>
            <Table verticalSpacing="sm" horizontalSpacing="md" data-testid="providers-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Type</Table.Th>
                  <Table.Th>Endpoint</Table.Th>
                  <Table.Th>Key</Table.Th>
                  <Table.Th>Updated</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {shown.map((provider) => (
                  <ProviderRow key={provider.id} provider={provider} />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
      <CursorPager pages={pages} pageSize={PAGE} shown={shown.length} nextCursor={shown.length === PAGE && last ? last.id : null} settled={!providers.isPlaceholderData} />
      {adding ? <AddProviderModal onClose={() => setAdding(false)} /> : null}
    </>
  );
}
