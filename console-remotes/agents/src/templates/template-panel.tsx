import { useState, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ActionIcon, Badge, Button, Card, ErrorNotice, Group, Stack, Text, TextInput, Title, Tooltip, useV1 } from '@engram/console-kit';
import { NumberInput, Select, Switch, Textarea } from '@engram/console-kit/widgets';
import { IconLink, IconPencil, IconPlus, IconTrash, IconUnlink } from '@tabler/icons-react';
import { agentKeys, useMemberPermissions } from '../queries.js';
import { templateKeys, useBlockTemplates, useOrganizationId } from './template-queries.js';
import { templatesApi } from './templates-api.js';
import type { AgentTemplate, SimulatedAgent, TemplateBlock, WorkingStateChange } from './template-types.js';

/**
 * A change of the working state: the API applies it to the template and rebuilds the simulated agent from it,
 * so both the template and what the editor shows of the agent are read again.
 */
function useTemplateChange(template: AgentTemplate, simulated: SimulatedAgent) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const organizationId = useOrganizationId();
  return useMutation({
    mutationFn: (change: WorkingStateChange | (() => Promise<unknown>)) =>
      typeof change === 'function' ? change() : templatesApi.update(template.id, change),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: templateKeys.template(organizationId, template.id) });
      if (simulated.agentId) await queryClient.invalidateQueries({ queryKey: agentKeys.agent(v1, simulated.agentId) });
    },
  });
}

function Section({ title, description, children, testId }: { title: string; description: string; children: ReactNode; testId: string }) {
  return (
    <Stack gap="xs" data-testid={testId}>
      <Stack gap={2}>
        <Title order={5}>{title}</Title>
        <Text size="xs" c="dimmed">
          {description}
        </Text>
      </Stack>
      {children}
    </Stack>
  );
}

/** One of the template's blocks, as written (placeholders and all); a block of a block template is edited there. */
function BlockEditor({ block, onSave, onRemove, saving, canEdit }: { block: TemplateBlock; onSave: (block: TemplateBlock) => void; onRemove: () => void; saving: boolean; canEdit: boolean }) {
  const [draft, setDraft] = useState<TemplateBlock | null>(null);
  const linked = block.blockTemplateId !== null;
  const editing = draft !== null;
  const shown = draft ?? block;
  const tooLong = shown.value.length > shown.limit && !/\{\{/.test(shown.value);
  return (
    <Card withBorder radius="md" p="sm" data-testid={`template-block-${block.label}`}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap">
          <Group gap={6}>
            <Badge variant="light" radius="sm" tt="none" ff="monospace">
              {block.label}
            </Badge>
            {linked ? (
              <Tooltip label="From a block template: edit it under Block templates">
                <Badge variant="outline" size="xs" tt="none" leftSection={<IconLink size={10} />}>
                  block template
                </Badge>
              </Tooltip>
            ) : null}
            {block.preserveOnMigration ? (
              <Badge variant="outline" color="teal" size="xs" tt="none">
                kept on migration
              </Badge>
            ) : null}
          </Group>
          {canEdit && !editing ? (
            <Group gap={4}>
              {linked ? null : (
                <Tooltip label="Edit block">
                  <ActionIcon size="sm" variant="subtle" aria-label={`Edit ${block.label}`} onClick={() => setDraft(block)}>
                    <IconPencil size={14} />
                  </ActionIcon>
                </Tooltip>
              )}
              <Tooltip label={linked ? 'Detach the block template' : 'Remove block'}>
                <ActionIcon size="sm" variant="subtle" color="red" aria-label={linked ? `Detach ${block.label}` : `Remove ${block.label}`} onClick={onRemove}>
                  {linked ? <IconUnlink size={14} /> : <IconTrash size={14} />}
                </ActionIcon>
              </Tooltip>
            </Group>
          ) : null}
        </Group>
        {editing ? (
          <Stack gap="xs">
            <Textarea
              value={draft.value}
              onChange={(event) => setDraft({ ...draft, value: event.currentTarget.value })}
              autosize
              minRows={3}
              maxRows={12}
              ff="monospace"
              aria-label={`${block.label} template value`}
              error={tooLong ? `${draft.value.length} characters: over the limit of ${draft.limit}` : undefined}
            />
            <Group justify="space-between" align="flex-end">
              <Group gap="md" align="flex-end">
                <NumberInput label="Limit" value={draft.limit} onChange={(value) => setDraft({ ...draft, limit: Number(value) || 0 })} min={1} step={500} w={120} size="xs" />
                <Switch
                  label="Keep each agent's value on migration"
                  checked={draft.preserveOnMigration}
                  onChange={(event) => setDraft({ ...draft, preserveOnMigration: event.currentTarget.checked })}
                  size="xs"
                />
                <Switch label="Read-only" checked={draft.readOnly} onChange={(event) => setDraft({ ...draft, readOnly: event.currentTarget.checked })} size="xs" />
              </Group>
              <Group gap="xs">
                <Button size="xs" variant="default" onClick={() => setDraft(null)}>
                  Cancel
                </Button>
                <Button
                  size="xs"
                  loading={saving}
                  disabled={tooLong || draft.limit < 1}
                  onClick={() => {
                    onSave(draft);
                    setDraft(null);
                  }}
                >
                  Save block
                </Button>
              </Group>
            </Group>
          </Stack>
        ) : (
          <Text fz="xs" ff="monospace" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }} c={block.value ? undefined : 'dimmed'} data-testid="template-block-value">
            {block.value || '(empty)'}
          </Text>
        )}
      </Stack>
    </Card>
  );
}

function AddBlock({ onAdd, saving }: { onAdd: (block: TemplateBlock) => void; saving: boolean }) {
  const [label, setLabel] = useState('');
  const [open, setOpen] = useState(false);
  if (!open) {
    return (
      <Button size="xs" variant="light" leftSection={<IconPlus size={14} />} onClick={() => setOpen(true)}>
        Add block
      </Button>
    );
  }
  return (
    <Group gap="xs" align="flex-end">
      <TextInput size="xs" label="Label" value={label} onChange={(event) => setLabel(event.currentTarget.value)} />
      <Button
        size="xs"
        loading={saving}
        disabled={!label.trim()}
        onClick={() => {
          onAdd({ label: label.trim(), value: '', limit: 2000, description: null, readOnly: false, preserveOnMigration: false, blockTemplateId: null });
          setLabel('');
          setOpen(false);
        }}
      >
        Add
      </Button>
      <Button size="xs" variant="default" onClick={() => setOpen(false)}>
        Cancel
      </Button>
    </Group>
  );
}

/** Attaches one of the organization's block templates that the template has not got yet. */
function AttachBlockTemplate({ template, attach, saving }: { template: AgentTemplate; attach: (blockTemplateId: string) => void; saving: boolean }) {
  const blockTemplates = useBlockTemplates('');
  const attached = new Set(template.agentState.blocks.map((block) => block.blockTemplateId));
  const choices = (blockTemplates.data?.blockTemplates ?? []).filter((blockTemplate) => !attached.has(blockTemplate.id));
  if (choices.length === 0) return null;
  return (
    <Select
      size="xs"
      placeholder={saving ? 'Attaching…' : 'Attach a block template'}
      data={choices.map((blockTemplate) => ({ value: blockTemplate.id, label: blockTemplate.label }))}
      value={null}
      onChange={(value) => value && attach(value)}
      aria-label="Attach a block template"
      w={260}
    />
  );
}

/** The variables the template declares (with defaults), and the values its simulated agent is built with. */
function Variables({ template, simulated, canEdit }: { template: AgentTemplate; simulated: SimulatedAgent; canEdit: boolean }) {
  const organizationId = useOrganizationId();
  const queryClient = useQueryClient();
  const v1 = useV1();
  const values = useQuery({
    queryKey: templateKeys.simulatedVariables(organizationId, simulated.id),
    queryFn: async () => (await templatesApi.simulatedVariables(simulated.id)).memoryVariables,
  });
  const [draft, setDraft] = useState<Record<string, string> | null>(null);
  const change = useTemplateChange(template, simulated);
  const saveValues = useMutation({
    mutationFn: (memoryVariables: Record<string, string>) => templatesApi.setSimulatedVariables(simulated.id, memoryVariables),
    onSuccess: async () => {
      setDraft(null);
      await queryClient.invalidateQueries({ queryKey: templateKeys.simulatedVariables(organizationId, simulated.id) });
      await queryClient.invalidateQueries({ queryKey: templateKeys.simulated(organizationId, template.id) });
      if (simulated.agentId) await queryClient.invalidateQueries({ queryKey: agentKeys.agent(v1, simulated.agentId) });
    },
  });
  const variables = template.agentState.memoryVariables;
  if (variables.length === 0) {
    return (
      <Text size="xs" c="dimmed">
        No variables yet: write {'{{name}}'} in a block or the system prompt.
      </Text>
    );
  }
  const shown = draft ?? values.data ?? {};
  const setDefault = (key: string, defaultValue: string) =>
    change.mutate({ memoryVariables: variables.map((variable) => (variable.key === key ? { ...variable, defaultValue: defaultValue === '' ? null : defaultValue } : variable)) });
  return (
    <Stack gap="xs">
      {change.error ? <ErrorNotice error={change.error} title="The default was not saved" /> : null}
      {saveValues.error ? <ErrorNotice error={saveValues.error} title="The simulated agent was not rebuilt" /> : null}
      {variables.map((variable) => (
        <Group key={variable.key} gap="xs" align="flex-end" wrap="nowrap">
          <Badge variant="light" tt="none" ff="monospace" mb={6} style={{ flexShrink: 0 }}>
            {`{{${variable.key}}}`}
          </Badge>
          <TextInput
            size="xs"
            label="Default"
            placeholder="none: required when deploying"
            defaultValue={variable.defaultValue ?? ''}
            disabled={!canEdit}
            onBlur={(event) => {
              if (event.currentTarget.value !== (variable.defaultValue ?? '')) setDefault(variable.key, event.currentTarget.value);
            }}
            aria-label={`Default of ${variable.key}`}
          />
          <TextInput
            size="xs"
            label="Value in the simulation"
            placeholder={variable.defaultValue === null ? 'required' : variable.defaultValue}
            error={variable.defaultValue === null && !shown[variable.key] ? 'Needed to build the simulated agent' : undefined}
            value={shown[variable.key] ?? ''}
            onChange={(event) => setDraft({ ...shown, [variable.key]: event.currentTarget.value })}
            aria-label={`Simulated ${variable.key}`}
          />
        </Group>
      ))}
      {draft ? (
        <Group justify="flex-end">
          <Button size="xs" loading={saveValues.isPending} onClick={() => saveValues.mutate(draft)}>
            Apply to the simulation
          </Button>
        </Group>
      ) : null}
    </Stack>
  );
}

/**
 * The template's own side of the editor: its memory blocks as written (placeholders and all), block templates,
 * its system prompt, and its memory variables. Everything else (model, tools, rules) is edited on the simulated
 * agent in the other panels and taken into the template when a version is saved.
 */
export function TemplatePanel({ template, simulated }: { template: AgentTemplate; simulated: SimulatedAgent }) {
  const { can } = useMemberPermissions();
  const canEdit = can('update_templates');
  const change = useTemplateChange(template, simulated);
  const [system, setSystem] = useState<string | null>(null);
  const { blocks } = template.agentState;
  const replaceBlock = (label: string, next: TemplateBlock | null) =>
    change.mutate({ blocks: blocks.flatMap((block) => (block.label === label ? (next ? [next] : []) : [block])) });
  return (
    <Stack gap="lg" data-testid="template-panel">
      {change.error ? <ErrorNotice error={change.error} title="The template was not changed" /> : null}
      <Section title="Memory blocks" description="What every agent made from the template starts with; {{variables}} are filled per agent." testId="template-blocks">
        {blocks.map((block) => (
          <BlockEditor
            key={block.label}
            block={block}
            canEdit={canEdit}
            saving={change.isPending}
            onSave={(next) => replaceBlock(block.label, next)}
            onRemove={() =>
              block.blockTemplateId
                ? change.mutate(() => templatesApi.detachBlockTemplate(template.id, block.blockTemplateId!))
                : replaceBlock(block.label, null)
            }
          />
        ))}
        {canEdit ? (
          <Group gap="sm">
            <AddBlock saving={change.isPending} onAdd={(block) => change.mutate({ blocks: [...blocks, block] })} />
            <AttachBlockTemplate
              template={template}
              saving={change.isPending}
              attach={(blockTemplateId) => change.mutate(() => templatesApi.attachBlockTemplate(template.id, blockTemplateId))}
            />
          </Group>
        ) : null}
      </Section>
      <Section title="Variables" description="Filled per agent when agents are made from a version; the simulated agent uses the values here." testId="template-variables">
        <Variables template={template} simulated={simulated} canEdit={canEdit} />
      </Section>
      <Section title="System prompt" description="As written in the template; the Settings panel shows the simulated agent's, with its variables filled." testId="template-system">
        <Textarea
          value={system ?? template.agentState.systemPrompt}
          onChange={(event) => setSystem(event.currentTarget.value)}
          autosize
          minRows={3}
          maxRows={14}
          ff="monospace"
          fz="xs"
          disabled={!canEdit}
          aria-label="Template system prompt"
        />
        {system !== null && system !== template.agentState.systemPrompt ? (
          <Group justify="flex-end" gap="xs">
            <Button size="xs" variant="default" onClick={() => setSystem(null)}>
              Revert
            </Button>
            <Button size="xs" loading={change.isPending} onClick={() => change.mutate({ systemPrompt: system }, { onSuccess: () => setSystem(null) })}>
              Save system prompt
            </Button>
          </Group>
        ) : null}
      </Section>
    </Stack>
  );
}
