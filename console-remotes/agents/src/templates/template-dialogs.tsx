import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Anchor,
  Badge,
  Box,
  Button,
  Card,
  Code,
  ErrorNotice,
  Group,
  Link,
  Modal,
  ScrollArea,
  SegmentedControl,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  useFormatters,
} from '@engram/console-kit';
import { Checkbox, NumberInput, Progress, Select, Textarea } from '@engram/console-kit/widgets';
import { templateKeys, useMigrationRequirements, useMigrations, useOrganizationId, useTemplateVersions } from './template-queries.js';
import { templatesApi, versionSlug } from './templates-api.js';
import type { AgentTemplate, MemoryVariable, Migration, ReconciliationStrategy, TemplateVersion } from './template-types.js';
import { givenValues, VariableFields } from './variable-fields.js';
import { diffStates, type DiffLine } from './version-diff.js';

const STRATEGIES: Array<{ value: ReconciliationStrategy; label: string }> = [
  { value: 'preserve-deleted', label: 'Keep blocks the version dropped' },
  { value: 'reconcile-all', label: 'Remove blocks the version dropped' },
];

/** After anything that makes a version or a migration, the template, its versions and migrations are read again. */
function useInvalidateTemplate(templateId: string) {
  const queryClient = useQueryClient();
  const organizationId = useOrganizationId();
  return () => queryClient.invalidateQueries({ queryKey: templateKeys.template(organizationId, templateId) });
}

/** Saves the working state as the next version, optionally migrating the template's agents to it at once. */
export function SaveVersionModal({ template, onClose, onMigrationStarted }: { template: AgentTemplate; onClose: () => void; onMigrationStarted: () => void }) {
  const invalidate = useInvalidateTemplate(template.id);
  const [message, setMessage] = useState('');
  const [migrate, setMigrate] = useState(false);
  const [strategy, setStrategy] = useState<ReconciliationStrategy>('preserve-deleted');
  const [values, setValues] = useState<Record<string, string>>({});
  const needs = useMigrationRequirements(migrate ? versionSlug(template, 'dev') : null);
  const missing = missingForMigration(template.agentState.memoryVariables, needs.data, values);
  const save = useMutation({
    mutationFn: () =>
      templatesApi.saveVersion(template.id, {
        message: message.trim() || undefined,
        ...(migrate ? { migrate: { blockReconciliationStrategy: strategy, memoryVariables: givenValues(values) } } : {}),
      }),
    onSuccess: async (saved) => {
      await invalidate();
      onClose();
      if (saved.migration) onMigrationStarted();
    },
  });
  return (
    <Modal opened onClose={onClose} title="Save a version" centered>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <Stack>
          {save.error ? <ErrorNotice error={save.error} title="The version was not saved" /> : null}
          <Text size="sm" c="dimmed">
            Version {Number(template.latestDeployedVersion) + 1} freezes the template as it is now, including what you changed on the simulated agent.
          </Text>
          <Textarea label="Message" placeholder="What changed" value={message} onChange={(event) => setMessage(event.currentTarget.value)} autosize minRows={2} data-autofocus />
          <Checkbox label="Migrate the template's agents to this version" checked={migrate} onChange={(event) => setMigrate(event.currentTarget.checked)} />
          {migrate ? <Select label="Blocks the version no longer has" data={STRATEGIES} value={strategy} onChange={(value) => value && setStrategy(value as ReconciliationStrategy)} allowDeselect={false} /> : null}
          {migrate && missing.variables.length > 0 ? (
            <VariableFields variables={missing.variables} values={values} onChange={setValues} needed={missing.needed} what="the agents that have none" />
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending} disabled={migrate && (needs.isPending || missing.unfilled > 0)}>
              Save version
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

const LINE_COLORS: Record<DiffLine['kind'], string | undefined> = {
  same: undefined,
  added: 'var(--mantine-color-green-light)',
  removed: 'var(--mantine-color-red-light)',
};

const LINE_MARKS: Record<DiffLine['kind'], string> = { same: ' ', added: '+', removed: '-' };

function VersionDiff({ before, after }: { before: TemplateVersion; after: TemplateVersion }) {
  const changes = diffStates(before.agentState, after.agentState);
  if (changes.length === 0) {
    return (
      <Text size="sm" c="dimmed" data-testid="version-diff">
        Versions {before.version} and {after.version} are the same.
      </Text>
    );
  }
  return (
    <Stack gap="sm" data-testid="version-diff">
      {changes.map((change) => (
        <Card key={change.field} withBorder radius="md" p="xs" data-testid={`diff-${change.field}`}>
          <Text size="xs" fw={600} mb={4}>
            {change.field}
          </Text>
          <Box ff="monospace" fz="xs">
            {change.lines.map((line, index) => (
              <Box key={index} px={4} style={{ background: LINE_COLORS[line.kind], whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }} data-kind={line.kind}>
                {LINE_MARKS[line.kind]} {line.text}
              </Box>
            ))}
          </Box>
        </Card>
      ))}
    </Stack>
  );
}

/** Every saved version, newest first, and what changed between any two of them. */
export function VersionsModal({
  template,
  onClose,
  onDeploy,
  onMigrate,
}: {
  template: AgentTemplate;
  onClose: () => void;
  onDeploy: (version: string) => void;
  onMigrate: (version: string) => void;
}) {
  const format = useFormatters();
  const versions = useTemplateVersions(template.id);
  const list = versions.data ?? [];
  const [from, setFrom] = useState<string | null>(null);
  const [to, setTo] = useState<string | null>(null);
  const newest = list[0]?.version ?? null;
  const before = list.find((version) => version.version === (from ?? list[1]?.version));
  const after = list.find((version) => version.version === (to ?? newest));
  const options = list.map((version) => ({ value: version.version, label: `v${version.version}${version.message ? ` · ${version.message}` : ''}` }));
  return (
    <Modal opened onClose={onClose} title={`Versions of ${template.name}`} size="xl" centered>
      <Stack>
        {versions.error ? <ErrorNotice error={versions.error} onRetry={() => void versions.refetch()} /> : null}
        {versions.isPending ? <Skeleton h={80} /> : null}
        {list.length === 0 && !versions.isPending ? <Text c="dimmed">No version saved yet.</Text> : null}
        {list.length > 0 ? (
          <Table data-testid="versions-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Version</Table.Th>
                <Table.Th>Message</Table.Th>
                <Table.Th>Saved</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((version) => (
                <Table.Tr key={version.id} data-testid="version-row">
                  <Table.Td>
                    <Badge variant="light" tt="none">
                      v{version.version}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{version.message ?? ''}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" c="dimmed">
                      {format.relative(version.createdAt)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4} justify="flex-end" wrap="nowrap">
                      <Button size="compact-xs" variant="subtle" onClick={() => onDeploy(version.version)}>
                        Deploy
                      </Button>
                      <Button size="compact-xs" variant="subtle" onClick={() => onMigrate(version.version)}>
                        Migrate agents
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ) : null}
        {list.length > 1 && before && after ? (
          <Stack gap="xs">
            <Group gap="xs" align="flex-end">
              <Select label="Compare" data={options} value={before.version} onChange={setFrom} allowDeselect={false} w={260} aria-label="Older version" />
              <Select label="with" data={options} value={after.version} onChange={setTo} allowDeselect={false} w={260} aria-label="Newer version" />
            </Group>
            <ScrollArea.Autosize mah={420}>
              <VersionDiff before={before} after={after} />
            </ScrollArea.Autosize>
          </Stack>
        ) : null}
      </Stack>
    </Modal>
  );
}

/** Creates agents from a version, asking for the memory variables it declares (those without a default are required). */
export function DeployModal({ template, initialVersion, onClose }: { template: AgentTemplate; initialVersion: string; onClose: () => void }) {
  const versions = useTemplateVersions(template.id);
  const [version, setVersion] = useState(initialVersion);
  const [count, setCount] = useState<number | string>(1);
  const [name, setName] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const chosen = versions.data?.find((candidate) => candidate.version === version);
  const variables = chosen?.agentState.memoryVariables ?? [];
  const missing = variables.filter((variable) => variable.defaultValue === null && !values[variable.key]);
  const several = Number(count) > 1;
  const deploy = useMutation({
    mutationFn: () =>
      templatesApi.deploy(versionSlug(template, version), {
        count: Number(count),
        ...(name.trim() ? { name: name.trim() } : {}),
        memoryVariables: givenValues(values),
      }),
  });
  return (
    <Modal opened onClose={onClose} title={`Create agents from ${template.name}`} centered>
      {deploy.data ? (
        <Stack data-testid="deployed">
          <Alert color="teal" title={`${deploy.data.agentIds.length} agent${deploy.data.agentIds.length === 1 ? '' : 's'} created from v${version}`}>
            <Stack gap={2}>
              {deploy.data.agentIds.map((agentId) => (
                <Anchor key={agentId} component={Link} to={`../../${agentId}`} relative="path" size="sm" ff="monospace">
                  {agentId}
                </Anchor>
              ))}
            </Stack>
          </Alert>
          <Group justify="flex-end">
            <Button onClick={onClose}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            deploy.mutate();
          }}
        >
          <Stack>
            {deploy.error ? <ErrorNotice error={deploy.error} title="No agent was created" /> : null}
            <Select
              label="Version"
              data={(versions.data ?? []).map((candidate) => ({ value: candidate.version, label: `v${candidate.version}${candidate.message ? ` · ${candidate.message}` : ''}` }))}
              value={version}
              onChange={(value) => value && setVersion(value)}
              allowDeselect={false}
            />
            <Group grow>
              <NumberInput label="How many agents" value={count} onChange={setCount} min={1} max={100} />
              <TextInput
                label="Name"
                placeholder="generated when empty"
                description={name.trim() && several ? `Named ${name.trim()}-1 to ${name.trim()}-${Number(count)}` : 'A name an agent has already is refused'}
                maxLength={100}
                value={name}
                onChange={(event) => setName(event.currentTarget.value)}
              />
            </Group>
            <VariableFields variables={variables} values={values} onChange={setValues} what="the agents" />
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button type="submit" loading={deploy.isPending} disabled={!chosen || missing.length > 0 || !(Number(count) >= 1)}>
                Create agents
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

/**
 * What a migration still needs: the variables some of the template's agents have no value for (with how many), and
 * how many of those are not filled in yet.
 */
function missingForMigration(
  variables: MemoryVariable[],
  requirements: { missingMemoryVariables: Array<{ key: string; agents: number }> } | undefined,
  values: Record<string, string>,
) {
  const lacking = requirements?.missingMemoryVariables ?? [];
  const needed = new Map(lacking.map((variable) => [variable.key, `${variable.agents} agent${variable.agents === 1 ? ' has' : 's have'} no value of their own`]));
  const shown = variables.filter((variable) => needed.has(variable.key));
  return { variables: shown, needed, unfilled: lacking.filter((variable) => !values[variable.key]).length };
}

const STATUS_COLORS: Record<Migration['status'], string> = { running: 'blue', completed: 'teal', aborted: 'yellow', failed: 'red' };

function MigrationRow({ migration }: { migration: Migration }) {
  const format = useFormatters();
  const queryClient = useQueryClient();
  const organizationId = useOrganizationId();
  const abort = useMutation({
    mutationFn: () => templatesApi.abortMigration(migration.workflowId),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: templateKeys.all(organizationId) }),
  });
  const done = migration.migrated + migration.failed + migration.untouched;
  return (
    <Card withBorder radius="md" p="sm" data-testid="migration" data-status={migration.status}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap">
          <Group gap="xs">
            <Code>{migration.templateVersion}</Code>
            <Badge color={STATUS_COLORS[migration.status]} variant="light" data-testid="migration-status">
              {migration.status}
            </Badge>
          </Group>
          {migration.status === 'running' ? (
            <Button size="compact-xs" color="red" variant="light" loading={abort.isPending} onClick={() => abort.mutate()}>
              Abort
            </Button>
          ) : null}
        </Group>
        <Progress value={migration.total ? (done / migration.total) * 100 : 100} animated={migration.status === 'running'} aria-label="Migration progress" />
        <Text size="xs" c="dimmed" data-testid="migration-counts">
          {migration.migrated} of {migration.total} migrated
          {migration.failed ? `, ${migration.failed} failed` : ''}
          {migration.untouched ? `, ${migration.untouched} left on their version` : ''} · started {format.relative(migration.startedAt)}
        </Text>
        {abort.error ? <ErrorNotice error={abort.error} title="The migration was not aborted" /> : null}
        {migration.failures.map((failure) => (
          <Text key={failure.agentId} size="xs" c="red" ff="monospace">
            {failure.agentId}: {failure.reason}
          </Text>
        ))}
      </Stack>
    </Card>
  );
}

/** The template's migrations with live progress, and moving its agents to a saved version. */
export function MigrationsModal({ template, initialVersion, onClose }: { template: AgentTemplate; initialVersion: string | null; onClose: () => void }) {
  const migrations = useMigrations(template.id);
  const versions = useTemplateVersions(template.id);
  const invalidate = useInvalidateTemplate(template.id);
  const [version, setVersion] = useState<string | null>(initialVersion ?? (template.latestDeployedVersion === '0' ? null : template.latestDeployedVersion));
  const [strategy, setStrategy] = useState<ReconciliationStrategy>('preserve-deleted');
  const [values, setValues] = useState<Record<string, string>>({});
  const needs = useMigrationRequirements(version ? versionSlug(template, version) : null);
  const chosen = versions.data?.find((candidate) => candidate.version === version);
  const missing = missingForMigration(chosen?.agentState.memoryVariables ?? [], needs.data, values);
  const start = useMutation({
    mutationFn: () => templatesApi.migrate(versionSlug(template, version!), { blockReconciliationStrategy: strategy, memoryVariables: givenValues(values) }),
    onSuccess: () => invalidate(),
  });
  return (
    <Modal opened onClose={onClose} title={`Migrations of ${template.name}`} size="lg" centered>
      <Stack>
        <Card withBorder radius="md" p="sm">
          <Stack gap="xs">
            <Text size="sm">Move every agent made from this template to a saved version. An agent in the middle of a run is moved after it.</Text>
            <Group align="flex-end" gap="xs">
              <Select
                label="Version"
                data={(versions.data ?? []).map((candidate) => ({ value: candidate.version, label: `v${candidate.version}` }))}
                value={version}
                onChange={(value) => {
                  setVersion(value);
                  setValues({});
                }}
                allowDeselect={false}
                w={120}
              />
              <SegmentedControl size="xs" data={STRATEGIES.map((option) => ({ value: option.value, label: option.label }))} value={strategy} onChange={(value: string) => setStrategy(value as ReconciliationStrategy)} />
              <Button size="sm" loading={start.isPending} disabled={!version || needs.isPending || missing.unfilled > 0} onClick={() => start.mutate()}>
                Migrate agents
              </Button>
            </Group>
            {missing.variables.length > 0 ? (
              <VariableFields variables={missing.variables} values={values} onChange={setValues} needed={missing.needed} what="the agents that have none" />
            ) : null}
            {start.error ? <ErrorNotice error={start.error} title="The migration did not start" /> : null}
          </Stack>
        </Card>
        {migrations.error ? <ErrorNotice error={migrations.error} onRetry={() => void migrations.refetch()} /> : null}
        {migrations.isPending ? <Skeleton h={60} /> : null}
        {migrations.data?.length === 0 ? (
          <Text size="sm" c="dimmed">
            No migration yet.
          </Text>
        ) : null}
        {migrations.data?.map((migration) => (
          <MigrationRow key={migration.workflowId} migration={migration} />
        ))}
      </Stack>
    </Modal>
  );
}
