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
import { Select, Textarea } from '@engram/console-kit/widgets';
import { IconCircleCheck, IconDots, IconKey, IconPlus, IconShieldCheck, IconTrash } from '@tabler/icons-react';
import { usePermissions } from '../access/use-permissions.js';
import { ConfirmDialog } from '../confirm-dialog.js';
import { agentKeys } from '../queries.js';
import { CursorPager, useCursorPages } from '../workspace/cursor-pager.js';
import { defaultEndpoint, PROVIDER_TYPES, providerForm, type FieldKey, type FieldSpec } from './provider-forms.js';
import { checkProviderKey, checkStoredProvider, createProvider, deleteProvider, listProviders, replaceProviderKey, type Provider, type ProviderConnection } from './providers-api.js';

const PAGE = 25;

const providerKeys = {
  all: (v1: V1Client) => [...queryKeys.v1(v1.organizationId), 'providers'] as const,
  page: (v1: V1Client, after: string | null) => [...providerKeys.all(v1), after] as const,
};

type Draft = { name: string; providerType: string } & Record<FieldKey, string>;

const EMPTY_DRAFT: Draft = { name: '', providerType: 'openai', apiKey: '', baseUrl: '', accessKey: '', region: '', apiVersion: '' };

/** The connection the form describes: only the fields its type asks for. */
function connectionOf(draft: Draft): ProviderConnection {
  const asked = new Set(providerForm(draft.providerType).fields.map((field) => field.key));
  const value = (key: FieldKey) => (asked.has(key) ? draft[key].trim() : '');
  return {
    provider_type: draft.providerType,
    api_key: value('apiKey'),
    ...(value('baseUrl') ? { base_url: value('baseUrl') } : {}),
    ...(value('accessKey') ? { access_key: value('accessKey') } : {}),
    ...(value('region') ? { region: value('region') } : {}),
    ...(value('apiVersion') ? { api_version: value('apiVersion') } : {}),
  };
}

function draftErrors(draft: Draft): Record<string, string> {
  const errors: Record<string, string> = {};
  if (draft.name.trim() === '') errors.name = 'Name the provider';
  else if (draft.name.includes('/')) errors.name = 'A provider name cannot contain "/"';
  for (const field of providerForm(draft.providerType).fields) {
    if (field.required && draft[field.key].trim() === '') errors[field.key] = `Enter the ${field.label.toLowerCase()}`;
  }
  if (draft.providerType === 'google_vertex' && draft.apiKey.trim() && !draft.apiKey.trim().startsWith('{')) {
    errors.apiKey = "Paste the service account's whole JSON key";
  }
  return errors;
}

function FieldInput({ field, draft, error, onChange }: { field: FieldSpec; draft: Draft; error: string | undefined; onChange: (value: string) => void }) {
  const common = { label: field.label, description: field.description, placeholder: field.placeholder, value: draft[field.key], error };
  if (field.multiline) return <Textarea {...common} autosize minRows={4} maxRows={10} ff="monospace" onChange={(event) => onChange(event.currentTarget.value)} />;
  if (field.secret) return <PasswordInput {...common} autoComplete="off" onChange={(event) => onChange(event.currentTarget.value)} />;
  return <TextInput {...common} ff={field.key === 'baseUrl' ? 'monospace' : undefined} onChange={(event) => onChange(event.currentTarget.value)} />;
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
  const form = providerForm(draft.providerType);
  return (
    <Modal opened onClose={onClose} title="Add a provider" size="lg">
      <form onSubmit={submit} noValidate aria-label="Add a provider">
        <Stack>
          {add.error ? <ErrorNotice error={add.error} title="The provider was not added" /> : null}
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <TextInput label="Name" description="Its models are named <name>/<model>." value={draft.name} onChange={(event) => update({ name: event.currentTarget.value })} error={errors.name} data-autofocus />
            <Select
              label="Type"
              data={PROVIDER_TYPES.map((type) => ({ value: type, label: `${providerForm(type).label} (${type})` }))}
              value={draft.providerType}
              onChange={(value) => {
                if (!value) return;
                update({ providerType: value });
                setErrors({});
                check.reset();
              }}
              allowDeselect={false}
              searchable
            />
          </SimpleGrid>
          <Text size="sm" c="dimmed" data-testid="provider-form-hint">
            {form.label}: {form.hint}
          </Text>
          {form.fields.map((field) => (
            <FieldInput key={`${draft.providerType}-${field.key}`} field={field} draft={draft} error={errors[field.key]} onChange={(value) => update({ [field.key]: value })} />
          ))}
          {check.error && !check.isPending ? (
            <div data-testid="provider-check-error">
              <ErrorNotice error={check.error} title="The provider refused the check" />
            </div>
          ) : null}
          {check.data && !check.isPending ? (
            <Group gap={6} c="teal" data-testid="provider-key-valid">
              <IconCircleCheck size={16} />
              <Text size="sm">The credentials work: the provider listed its models.</Text>
            </Group>
          ) : null}
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            {can('checkProvider') ? (
              <Button variant="light" leftSection={<IconShieldCheck size={16} />} loading={check.isPending} onClick={() => valid() && check.mutate()}>
                Check
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
          {provider.base_url ?? defaultEndpoint(provider.provider_type) ?? (provider.region ? `region ${provider.region}` : '—')}
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
            <Tooltip label={check.error.message} multiline w={360}>
              <Text size="xs" c="red" maw={260} lineClamp={2} data-testid="provider-check-failed">
                {check.error.message}
              </Text>
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
