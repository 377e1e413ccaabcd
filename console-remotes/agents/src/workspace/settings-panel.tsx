import { useState, type ReactNode } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Button,
  ErrorNotice,
  Group,
  Modal,
  Paper,
  Stack,
  Text,
  TextInput,
  Title,
  useFormatters,
  useNavigate,
  useV1,
  type Agent,
  type V1Client,
} from '@engram/console-kit';
import { NumberInput, Select, Switch, Textarea } from '@engram/console-kit/widgets';
import { IconLock, IconTrash } from '@tabler/icons-react';
import { agentKeys, useMemberPermissions, useModels } from '../queries.js';
import { DuplicateAgentButton, ExportAgentButton, ImportAgentFileButton } from './settings-agent-file.js';
import { draftOf, handleOf, maxContextOf, modelDraftErrors, modelUpdate, type ModelDraft } from './settings-model-draft.js';

type AgentUpdate = Parameters<V1Client['updateAgent']>[1];

/** Saves a change to the agent and refreshes everything shown of it (its name in lists, its context window). */
function useAgentUpdate(agentId: string) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (change: AgentUpdate) => v1.updateAgent(agentId, change),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: agentKeys.all(v1) }),
  });
}

function Section({ title, description, children, testId }: { title: string; description?: ReactNode; children: ReactNode; testId: string }) {
  return (
    <Paper withBorder radius="md" p="sm" data-testid={testId}>
      <Stack gap="xs">
        <Stack gap={2}>
          <Title order={5}>{title}</Title>
          {description ? (
            <Text size="xs" c="dimmed">
              {description}
            </Text>
          ) : null}
        </Stack>
        {children}
      </Stack>
    </Paper>
  );
}

function SaveRow({ dirty, saving, disabled, onSave, onRevert }: { dirty: boolean; saving: boolean; disabled?: boolean; onSave: () => void; onRevert: () => void }) {
  if (!dirty) return null;
  return (
    <Group justify="flex-end" gap="xs">
      <Button size="xs" variant="default" onClick={onRevert} disabled={saving}>
        Revert
      </Button>
      <Button size="xs" loading={saving} disabled={disabled} onClick={onSave}>
        Save
      </Button>
    </Group>
  );
}

function NameSection({ agent, editable }: { agent: Agent; editable: boolean }) {
  const [name, setName] = useState(agent.name);
  const [description, setDescription] = useState(agent.description ?? '');
  const update = useAgentUpdate(agent.id);
  const dirty = name !== agent.name || description !== (agent.description ?? '');
  return (
    <Section title="Name and description" description="How the agent is listed; its id never changes." testId="settings-name">
      {update.error ? <ErrorNotice error={update.error} title="The name was not saved" /> : null}
      <TextInput label="Name" value={name} onChange={(event) => setName(event.currentTarget.value)} readOnly={!editable} error={name.trim() ? undefined : 'An agent needs a name'} size="xs" />
      <Textarea label="Description" value={description} onChange={(event) => setDescription(event.currentTarget.value)} readOnly={!editable} autosize minRows={1} maxRows={4} size="xs" />
      <SaveRow
        dirty={editable && dirty}
        saving={update.isPending}
        disabled={!name.trim()}
        onSave={() => update.mutate({ name: name.trim(), description: description.trim() || null })}
        onRevert={() => {
          setName(agent.name);
          setDescription(agent.description ?? '');
        }}
      />
    </Section>
  );
}

function SystemPromptSection({ agent, editable }: { agent: Agent; editable: boolean }) {
  const format = useFormatters();
  const [system, setSystem] = useState(agent.system);
  const update = useAgentUpdate(agent.id);
  return (
    <Section
      title="System prompt"
      description="The instructions at the top of the agent's context, before its memory blocks; the next turn uses a saved change."
      testId="settings-system"
    >
      {update.error ? <ErrorNotice error={update.error} title="The system prompt was not saved" /> : null}
      <Textarea
        value={system}
        onChange={(event) => setSystem(event.currentTarget.value)}
        readOnly={!editable}
        autosize
        minRows={6}
        maxRows={18}
        ff="monospace"
        styles={{ input: { fontSize: 'var(--mantine-font-size-xs)' } }}
        description={`${format.number(system.length)} characters`}
        aria-label="System prompt"
      />
      <SaveRow dirty={editable && system !== agent.system} saving={update.isPending} onSave={() => update.mutate({ system })} onRevert={() => setSystem(agent.system)} />
    </Section>
  );
}

function ModelSection({ agent, editable }: { agent: Agent; editable: boolean }) {
  const format = useFormatters();
  const models = useModels();
  const [draft, setDraft] = useState<ModelDraft>(() => draftOf(agent));
  const update = useAgentUpdate(agent.id);
  const change = (partial: Partial<ModelDraft>) => setDraft({ ...draft, ...partial });
  const chosen = models.data?.find((model) => handleOf(model) === draft.handle);
  const maxContext = maxContextOf(chosen);
  const options = Object.entries(
    (models.data ?? []).reduce<Record<string, string[]>>((groups, model) => {
      (groups[model.provider_name] ??= []).push(handleOf(model));
      return groups;
    }, {}),
  ).map(([group, items]) => ({ group, items }));
  // The agent's model may no longer be offered (its provider was removed); it stays selectable as it is.
  if (!options.some((group) => group.items.includes(draftOf(agent).handle))) options.unshift({ group: 'Current', items: [draftOf(agent).handle] });

  const errors = modelDraftErrors(draft, maxContext, format.number);
  const invalid = Object.values(errors).some(Boolean);
  const dirty = JSON.stringify(draft) !== JSON.stringify(draftOf(agent));

  return (
    <Section title="Model" description="The model the agent thinks with, and how it is asked; the next turn uses a saved change." testId="settings-model">
      {update.error ? <ErrorNotice error={update.error} title="The model settings were not saved" /> : null}
      <Select
        label="Model"
        data={options}
        value={draft.handle}
        onChange={(handle) => {
          if (!handle) return;
          // Another model starts from its own context window.
          const model = models.data?.find((candidate) => handleOf(candidate) === handle);
          change({ handle, contextWindow: model?.context_window ?? draft.contextWindow });
        }}
        searchable
        readOnly={!editable}
        nothingFoundMessage={models.error ? 'Models could not be loaded' : 'No model matches'}
        size="xs"
        comboboxProps={{ withinPortal: true }}
      />
      <Group grow align="flex-start" gap="xs">
        <NumberInput
          label="Context window"
          description={maxContext ? `Up to ${format.number(maxContext)} tokens` : 'Tokens'}
          value={draft.contextWindow}
          onChange={(value) => change({ contextWindow: value })}
          min={1}
          max={maxContext}
          step={1000}
          thousandSeparator=","
          allowDecimal={false}
          readOnly={!editable}
          error={errors.contextWindow}
          size="xs"
        />
        <NumberInput
          label="Max output tokens"
          description="Empty: the provider's default"
          value={draft.maxTokens}
          onChange={(value) => change({ maxTokens: value })}
          min={1}
          allowDecimal={false}
          readOnly={!editable}
          error={errors.maxTokens}
          size="xs"
        />
      </Group>
      <Group grow align="flex-start" gap="xs">
        <NumberInput
          label="Temperature"
          description="0 to 2; empty: the default"
          value={draft.temperature}
          onChange={(value) => change({ temperature: value })}
          min={0}
          max={2}
          step={0.1}
          decimalScale={2}
          readOnly={!editable}
          error={errors.temperature}
          size="xs"
        />
        <Switch
          mt={22}
          label="Parallel tool calls"
          description="Several tools in one step"
          checked={draft.parallelToolCalls}
          onChange={(event) => change({ parallelToolCalls: event.currentTarget.checked })}
          disabled={!editable}
          size="xs"
        />
      </Group>
      <SaveRow dirty={editable && dirty} saving={update.isPending} disabled={invalid} onSave={() => update.mutate(modelUpdate(agent, draft))} onRevert={() => setDraft(draftOf(agent))} />
    </Section>
  );
}

function DeleteSection({ agent }: { agent: Agent }) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => v1.deleteAgent(agent.id),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: agentKeys.agent(v1, agent.id) });
      await queryClient.invalidateQueries({ queryKey: agentKeys.all(v1) });
      void navigate('..', { relative: 'path' });
    },
  });
  return (
    <Section title="Delete agent" description="The agent goes with its messages, runs and the memory blocks only it uses." testId="settings-delete">
      <Group>
        <Button size="xs" color="red" variant="light" leftSection={<IconTrash size={14} />} onClick={() => setConfirming(true)}>
          Delete agent…
        </Button>
      </Group>
      <Modal opened={confirming} onClose={() => setConfirming(false)} title={`Delete ${agent.name}?`} centered>
        <Stack>
          {remove.error ? <ErrorNotice error={remove.error} title="The agent was not deleted" /> : null}
          <Text size="sm">Its messages, runs and the memory blocks only it uses are deleted with it. This cannot be undone.</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
              Delete agent
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Section>
  );
}

/**
 * The agent's settings: name, system prompt, model and its parameters, the agent file (export, duplicate, import)
 * and deletion. A member whose role cannot change agents reads them; what the role cannot do is not offered.
 */
export function SettingsPanel({ agent }: { agent: Agent }) {
  const { can } = useMemberPermissions();
  const editable = can('update_agents');
  return (
    <Stack gap="sm" data-testid="settings-panel">
      {!editable ? (
        <Alert variant="light" color="gray" icon={<IconLock size={16} />} p="xs">
          <Text size="xs">Your role can read this agent&apos;s settings but not change them.</Text>
        </Alert>
      ) : null}
      {/* Keyed on the saved values: a saved change starts the form again from what the API now holds. */}
      <NameSection key={`${agent.name}\n${agent.description ?? ''}`} agent={agent} editable={editable} />
      <SystemPromptSection key={agent.system} agent={agent} editable={editable} />
      <ModelSection key={JSON.stringify(agent.llm_config)} agent={agent} editable={editable} />
      <Section title="Agent file" description="One JSON file with the agent's settings, memory blocks, tools and messages." testId="settings-agent-file">
        <Group gap="xs">
          <ExportAgentButton agent={agent} />
          {can('create_agents') ? <DuplicateAgentButton agent={agent} /> : null}
          {can('create_agents') ? <ImportAgentFileButton agentPath={(agentId) => `../${agentId}`} /> : null}
        </Group>
      </Section>
      {can('delete_agents') ? <DeleteSection agent={agent} /> : null}
    </Stack>
  );
}
