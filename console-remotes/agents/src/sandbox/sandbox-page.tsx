import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Alert,
  Button,
  Card,
  Code,
  ErrorNotice,
  Group,
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
  Title,
  Tooltip,
  useV1,
  type V1Client,
} from '@engram/console-kit';
import { NumberInput, Switch, Textarea } from '@engram/console-kit/widgets';
import { IconCloudComputing, IconDeviceFloppy, IconKey, IconPlus, IconRefresh, IconTrash } from '@tabler/icons-react';
import { usePermissions } from '../access/use-permissions.js';
import { ConfirmDialog } from '../confirm-dialog.js';
import { formatRequirements, parseRequirements } from '../tools/tool-draft.js';
import {
  addSandboxVariable,
  createLocalSandbox,
  deleteSandboxVariable,
  ensureLocalSandbox,
  listSandboxConfigs,
  listSandboxVariables,
  recreateLocalVenv,
  setSandboxVariableValue,
  updateSandboxConfig,
  type LocalSandboxSettings,
  type SandboxConfig,
  type SandboxVariable,
} from './sandbox-api.js';

const sandboxKeys = {
  all: (v1: V1Client) => [...queryKeys.v1(v1.organizationId), 'sandbox-config'] as const,
  configs: (v1: V1Client) => [...sandboxKeys.all(v1), 'configs'] as const,
  variables: (v1: V1Client, configId: string) => [...sandboxKeys.all(v1), 'variables', configId] as const,
};

/** What the local sandbox uses when the organization has not changed it (the API's defaults). */
const LOCAL_DEFAULTS: Required<Pick<LocalSandboxSettings, 'use_venv' | 'venv_name' | 'pip_requirements' | 'timeout'>> = {
  use_venv: false,
  venv_name: 'venv',
  pip_requirements: [],
  timeout: 180,
};

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The local sandbox's settings: a venv with pip requirements, and how long one tool call may take. */
function LocalSettings({ config }: { config: SandboxConfig | null }) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const { can } = usePermissions();
  const stored = { ...LOCAL_DEFAULTS, ...(config?.config as LocalSandboxSettings | undefined) };
  const [useVenv, setUseVenv] = useState(stored.use_venv);
  const [venvName, setVenvName] = useState(stored.venv_name);
  const [requirements, setRequirements] = useState(formatRequirements(stored.pip_requirements, 'python'));
  const [timeoutSeconds, setTimeoutSeconds] = useState<number | string>(stored.timeout);
  const editable = config ? can('updateSandboxConfig') : can('createSandboxConfig');
  const refresh = () => queryClient.invalidateQueries({ queryKey: sandboxKeys.all(v1) });
  const save = useMutation({
    mutationFn: () => {
      const settings: LocalSandboxSettings = {
        use_venv: useVenv,
        venv_name: venvName.trim() || 'venv',
        pip_requirements: parseRequirements(requirements, 'python'),
        timeout: typeof timeoutSeconds === 'number' ? timeoutSeconds : LOCAL_DEFAULTS.timeout,
      };
      return config ? updateSandboxConfig(config.id, settings) : createLocalSandbox(settings);
    },
    onSuccess: refresh,
  });
  const rebuild = useMutation({ mutationFn: recreateLocalVenv, onSuccess: refresh });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Card withBorder radius="lg" p="md">
      <form onSubmit={submit} noValidate aria-label="Local sandbox settings">
        <Stack gap="sm">
          <Title order={4}>Local sandbox</Title>
          <Text size="sm" c="dimmed">
            Tools run as child processes of the Engram worker, each call in a fresh temporary directory.
          </Text>
          {save.error ? <ErrorNotice error={save.error} title="The settings were not saved" /> : null}
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <NumberInput label="Timeout (seconds per tool call)" value={timeoutSeconds} onChange={setTimeoutSeconds} min={1} max={3600} allowDecimal={false} readOnly={!editable} />
            <TextInput label="Venv name" value={venvName} onChange={(event) => setVenvName(event.currentTarget.value)} disabled={!useVenv} readOnly={!editable} />
          </SimpleGrid>
          <Switch
            label="Run Python tools in a virtual environment"
            description="With the pip requirements below installed; each tool's own requirements are added on top."
            checked={useVenv}
            onChange={(event) => setUseVenv(event.currentTarget.checked)}
            disabled={!editable}
          />
          <Textarea
            label="pip requirements"
            description="One a line, like requests==2.32.3"
            value={requirements}
            onChange={(event) => setRequirements(event.currentTarget.value)}
            autosize
            minRows={2}
            maxRows={8}
            disabled={!useVenv}
            readOnly={!editable}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          />
          {rebuild.error ? <ErrorNotice error={rebuild.error} title="The venv was not rebuilt" /> : null}
          {rebuild.isSuccess && !rebuild.isPending ? (
            <Text size="sm" c="teal">
              The venv was rebuilt with its requirements.
            </Text>
          ) : null}
          {editable ? (
            <Group justify="flex-end" gap="xs">
              {useVenv && can('createSandboxConfig') ? (
                <Button variant="default" leftSection={<IconRefresh size={16} />} loading={rebuild.isPending} onClick={() => rebuild.mutate()}>
                  Rebuild venv
                </Button>
              ) : null}
              <Button type="submit" leftSection={<IconDeviceFloppy size={16} />} loading={save.isPending}>
                Save settings
              </Button>
            </Group>
          ) : null}
        </Stack>
      </form>
    </Card>
  );
}

function SetValueModal({ variable, onClose }: { variable: SandboxVariable; onClose: () => void }) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const [value, setValue] = useState('');
  const change = useMutation({
    mutationFn: () => setSandboxVariableValue(variable.id, value),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: sandboxKeys.all(v1) });
      onClose();
    },
  });
  return (
    <Modal opened onClose={onClose} title={`New value for ${variable.key}`}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          change.mutate();
        }}
        noValidate
      >
        <Stack>
          {change.error ? <ErrorNotice error={change.error} title="The value was not changed" /> : null}
          <PasswordInput label="Value" value={value} onChange={(event) => setValue(event.currentTarget.value)} autoComplete="off" data-autofocus />
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={change.isPending}>
              Save value
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function VariableRow({ variable, manageable }: { variable: SandboxVariable; manageable: boolean }) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const [dialog, setDialog] = useState<'value' | 'delete' | null>(null);
  const remove = useMutation({
    mutationFn: () => deleteSandboxVariable(variable.id),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: sandboxKeys.all(v1) });
      setDialog(null);
    },
  });
  return (
    <Table.Tr data-testid={`sandbox-variable-${variable.key}`}>
      <Table.Td>
        <Code>{variable.key}</Code>
      </Table.Td>
      <Table.Td>
        <Code data-testid="sandbox-variable-value">{variable.value}</Code>
      </Table.Td>
      <Table.Td>
        <Text size="xs" c="dimmed">
          {variable.description}
        </Text>
      </Table.Td>
      <Table.Td>
        {manageable ? (
          <Group gap={4} justify="flex-end" wrap="nowrap">
            <Tooltip label="Set a new value">
              <ActionIcon variant="subtle" onClick={() => setDialog('value')} aria-label={`Set ${variable.key}`}>
                <IconKey size={16} />
              </ActionIcon>
            </Tooltip>
            <Tooltip label="Delete">
              <ActionIcon variant="subtle" color="red" onClick={() => setDialog('delete')} aria-label={`Delete ${variable.key}`}>
                <IconTrash size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        ) : null}
        {dialog === 'value' ? <SetValueModal variable={variable} onClose={() => setDialog(null)} /> : null}
        {dialog === 'delete' ? (
          <ConfirmDialog title={`Delete ${variable.key}?`} confirmLabel="Delete variable" mutation={remove} onConfirm={() => remove.mutate()} onClose={() => setDialog(null)}>
            Tools stop seeing it from their next call.
          </ConfirmDialog>
        ) : null}
      </Table.Td>
    </Table.Tr>
  );
}

function AddVariableForm({ config }: { config: SandboxConfig | null }) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const [description, setDescription] = useState('');
  const [keyError, setKeyError] = useState<string | undefined>();
  const add = useMutation({
    mutationFn: async () => {
      // Variables belong to a config: the organization's first one gets the local config with its defaults.
      const target = config ?? (await ensureLocalSandbox());
      return addSandboxVariable(target.id, { key: key.trim(), value, ...(description.trim() ? { description: description.trim() } : {}) });
    },
    onSuccess: async () => {
      setKey('');
      setValue('');
      setDescription('');
      await queryClient.invalidateQueries({ queryKey: sandboxKeys.all(v1) });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const problem = VARIABLE_NAME.test(key.trim()) ? undefined : 'Letters, digits and _, not starting with a digit';
    setKeyError(problem);
    if (!problem) add.mutate();
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Add a sandbox variable">
      <Stack gap="xs">
        {add.error ? <ErrorNotice error={add.error} title="The variable was not added" /> : null}
        <Group gap="xs" align="flex-start" wrap="wrap">
          <TextInput size="xs" label="Name" placeholder="WEATHER_API_KEY" value={key} onChange={(event) => setKey(event.currentTarget.value)} error={keyError} ff="monospace" w={220} />
          <PasswordInput size="xs" label="Value" value={value} onChange={(event) => setValue(event.currentTarget.value)} autoComplete="off" w={220} />
          <TextInput size="xs" label="Description" value={description} onChange={(event) => setDescription(event.currentTarget.value)} style={{ flex: 1, minWidth: 180 }} />
          <Button type="submit" size="xs" mt={22} leftSection={<IconPlus size={14} />} loading={add.isPending}>
            Add variable
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function Variables({ config }: { config: SandboxConfig | null }) {
  const v1 = useV1();
  const { can } = usePermissions();
  const variables = useQuery({ queryKey: sandboxKeys.variables(v1, config?.id ?? ''), queryFn: () => listSandboxVariables(config?.id ?? ''), enabled: config !== null });
  const manageable = can('manageSandboxVariables') && (config !== null || can('createSandboxConfig'));
  const rows = variables.data ?? [];
  return (
    <Card withBorder radius="lg" p="md">
      <Stack gap="sm">
        <Title order={4}>Environment variables</Title>
        <Text size="sm" c="dimmed">
          Every tool call in the local sandbox sees these (an agent&apos;s own secrets win over them). Values are stored encrypted and only ever shown masked.
        </Text>
        {variables.error ? <ErrorNotice error={variables.error} onRetry={() => void variables.refetch()} /> : null}
        {config && variables.isPending ? (
          <Skeleton h={40} />
        ) : rows.length === 0 ? (
          <Text size="sm" c="dimmed">
            No variables yet.
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={520}>
            <Table verticalSpacing="xs" data-testid="sandbox-variables">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Value</Table.Th>
                  <Table.Th>Description</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((variable) => (
                  <VariableRow key={variable.id} variable={variable} manageable={manageable} />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {manageable ? <AddVariableForm config={config} /> : null}
      </Stack>
    </Card>
  );
}

/** Where the organization's tools run: the local sandbox's settings and its environment variables. */
export function SandboxPage() {
  const v1 = useV1();
  const configs = useQuery({ queryKey: sandboxKeys.configs(v1), queryFn: listSandboxConfigs });
  const local = configs.data?.find((config) => config.type === 'local') ?? null;
  const remote = configs.data?.find((config) => config.type === 'e2b' || config.type === 'modal');
  return (
    <>
      <PageHeader title="Sandbox" description="Where custom tools run for this organization, with what they may install and read." />
      {configs.error ? <ErrorNotice error={configs.error} onRetry={() => void configs.refetch()} /> : null}
      {configs.isPending ? (
        <Skeleton h={240} radius="lg" />
      ) : (
        <Stack gap="md" maw={960}>
          {remote ? (
            <Alert variant="light" color="blue" icon={<IconCloudComputing size={18} />} title={`This organization has a ${remote.type} sandbox`}>
              Tools without a sandbox of their own run there, not locally ({remote.id}); the settings below apply to tools that ask for the local one.
            </Alert>
          ) : null}
          {/* Keyed by the stored version, so a save elsewhere resets the form to what was stored. */}
          <LocalSettings key={local?.updated_at ?? 'defaults'} config={local} />
          <Variables config={local} />
        </Stack>
      )}
    </>
  );
}
