import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Button,
  ErrorNotice,
  Group,
  Modal,
  NativeSelect,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Tooltip,
  useProject,
  useV1,
} from '@engram/console-kit';
import { MultiSelect, Textarea } from '@engram/console-kit/widgets';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { usePermissions } from '../access/use-permissions.js';
import { agentKeys } from '../queries.js';
import { useAgentPicker } from '../tools/attach-to-agent.js';
import {
  attachIdentity,
  createIdentity,
  detachIdentity,
  listIdentityAgents,
  replaceIdentityProperties,
  updateIdentity,
  type Identity,
  type IdentityType,
} from './identities-api.js';
import type { PropertyType } from './identity-types.js';
import { identityKeys } from './identity-keys.js';
import { identityProperties, propertyDrafts, type PropertyDraft } from './property-draft.js';

const TYPES: Array<{ value: IdentityType; label: string }> = [
  { value: 'user', label: 'User' },
  { value: 'org', label: 'Organization' },
  { value: 'other', label: 'Other' },
];

const PROPERTY_TYPES: PropertyType[] = ['string', 'number', 'boolean', 'json'];

function PropertyValue({ draft, label, error, readOnly, onChange }: { draft: PropertyDraft; label: string; error?: string; readOnly: boolean; onChange: (value: string) => void }) {
  if (draft.type === 'boolean') {
    return <NativeSelect size="xs" aria-label={label} data={['', 'true', 'false']} value={draft.value} onChange={(event) => onChange(event.currentTarget.value)} error={error} disabled={readOnly} />;
  }
  if (draft.type === 'json') {
    return <Textarea size="xs" aria-label={label} value={draft.value} onChange={(event) => onChange(event.currentTarget.value)} error={error} autosize minRows={1} maxRows={6} ff="monospace" placeholder='{"plan": "pro"}' readOnly={readOnly} />;
  }
  return <TextInput size="xs" aria-label={label} value={draft.value} onChange={(event) => onChange(event.currentTarget.value)} error={error} readOnly={readOnly} />;
}

function PropertyRows({ rows, errors, readOnly, onChange }: { rows: PropertyDraft[]; errors: Record<number, string>; readOnly: boolean; onChange: (rows: PropertyDraft[]) => void }) {
  const set = (index: number, change: Partial<PropertyDraft>) => onChange(rows.map((row, at) => (at === index ? { ...row, ...change } : row)));
  return (
    <Stack gap={6}>
      <Group justify="space-between">
        <Text size="sm" fw={500}>
          Properties
        </Text>
        {!readOnly ? (
          <Button size="compact-xs" variant="subtle" leftSection={<IconPlus size={12} />} onClick={() => onChange([...rows, { key: '', type: 'string', value: '' }])}>
            Add property
          </Button>
        ) : null}
      </Group>
      {rows.length === 0 ? (
        <Text size="xs" c="dimmed">
          None. Properties are facts about this identity that agents and your code can read.
        </Text>
      ) : null}
      {rows.map((row, index) => (
        <Group key={index} gap="xs" align="flex-start" wrap="nowrap">
          <TextInput size="xs" w={160} placeholder="Key" aria-label={`Property ${index + 1} key`} value={row.key} onChange={(event) => set(index, { key: event.currentTarget.value })} readOnly={readOnly} ff="monospace" />
          <NativeSelect size="xs" w={100} aria-label={`Property ${index + 1} type`} data={PROPERTY_TYPES} value={row.type} onChange={(event) => set(index, { type: event.currentTarget.value as PropertyType, value: '' })} disabled={readOnly} />
          <div style={{ flex: 1 }}>
            <PropertyValue draft={row} label={`Property ${index + 1} value`} error={errors[index]} readOnly={readOnly} onChange={(value) => set(index, { value })} />
          </div>
          {!readOnly ? (
            <Tooltip label="Remove">
              <ActionIcon variant="subtle" color="gray" mt={2} aria-label={`Remove property ${index + 1}`} onClick={() => onChange(rows.filter((_, at) => at !== index))}>
                <IconTrash size={14} />
              </ActionIcon>
            </Tooltip>
          ) : null}
        </Group>
      ))}
    </Stack>
  );
}

/** Creates an identity, or edits one: its name, key, type, properties (replaced as a whole) and the agents that act for it. */
export function IdentityModal({ identity, onClose }: { identity: Identity | null; onClose: () => void }) {
  const v1 = useV1();
  const project = useProject();
  const queryClient = useQueryClient();
  const { can } = usePermissions();
  const editable = identity ? can('updateIdentity') : can('createIdentity');
  const canLinkAgents = editable && can('changeAgent');
  const [name, setName] = useState(identity?.name ?? '');
  const [identifierKey, setIdentifierKey] = useState(identity?.identifier_key ?? '');
  const [type, setType] = useState<IdentityType>(identity?.identity_type ?? 'user');
  const [rows, setRows] = useState<PropertyDraft[]>(propertyDrafts(identity?.properties ?? []));
  const [agentIds, setAgentIds] = useState<string[]>(identity?.agent_ids ?? []);
  const [errors, setErrors] = useState<{ fields: Record<string, string>; properties: Record<number, string> }>({ fields: {}, properties: {} });
  const picker = useAgentPicker();
  const linked = useQuery({ queryKey: identityKeys.agents(v1, identity?.id ?? ''), queryFn: () => listIdentityAgents(identity?.id ?? ''), enabled: identity !== null });
  // Every agent a name is known for: the ones found by the search and the ones linked already.
  const agentNames = new Map([...(linked.data ?? []), ...(picker.agents.data ?? [])].map((agent) => [agent.id, agent.name]));

  const save = useMutation({
    mutationFn: async () => {
      const made = identityProperties(rows);
      const fieldErrors: Record<string, string> = {};
      if (!name.trim()) fieldErrors.name = 'Name the identity';
      if (!identifierKey.trim()) fieldErrors.identifierKey = 'Enter the key your system knows it by';
      setErrors({ fields: fieldErrors, properties: made.errors });
      if (Object.keys(fieldErrors).length || Object.keys(made.errors).length) return false;
      const fields = { name: name.trim(), identifier_key: identifierKey.trim(), identity_type: type };
      if (!identity) {
        await createIdentity({ ...fields, project_id: project.id, properties: made.properties, agent_ids: agentIds });
      } else {
        await updateIdentity(identity.id, fields);
        await replaceIdentityProperties(identity.id, made.properties);
        const before = new Set(identity.agent_ids);
        const after = new Set(agentIds);
        for (const agentId of agentIds) if (!before.has(agentId)) await attachIdentity(agentId, identity.id);
        for (const agentId of identity.agent_ids) if (!after.has(agentId)) await detachIdentity(agentId, identity.id);
      }
      return true;
    },
    onSuccess: async (saved) => {
      if (!saved) return;
      await queryClient.invalidateQueries({ queryKey: identityKeys.all(v1) });
      await queryClient.invalidateQueries({ queryKey: agentKeys.all(v1) });
      onClose();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <Modal opened onClose={onClose} title={identity ? `Identity ${identity.name}` : 'New identity'} size="lg">
      <form onSubmit={submit} noValidate aria-label={identity ? 'Edit identity' : 'New identity'}>
        <Stack>
          {save.error ? <ErrorNotice error={save.error} title="The identity was not saved" /> : null}
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <TextInput label="Name" value={name} onChange={(event) => setName(event.currentTarget.value)} error={errors.fields.name} readOnly={!editable} data-autofocus />
            <NativeSelect label="Type" data={TYPES} value={type} onChange={(event) => setType(event.currentTarget.value as IdentityType)} disabled={!editable} />
          </SimpleGrid>
          <TextInput
            label="Identifier key"
            description="The id your own system knows this user or organization by; agents are found by it."
            value={identifierKey}
            onChange={(event) => setIdentifierKey(event.currentTarget.value)}
            error={errors.fields.identifierKey}
            readOnly={!editable}
            ff="monospace"
          />
          <PropertyRows rows={rows} errors={errors.properties} readOnly={!editable} onChange={setRows} />
          <MultiSelect
            label="Agents"
            description="Agents that act for this identity."
            data={[...agentNames].map(([value, label]) => ({ value, label }))}
            value={agentIds}
            onChange={setAgentIds}
            searchable
            searchValue={picker.search}
            onSearchChange={picker.setSearch}
            nothingFoundMessage="No agent by that name"
            disabled={!canLinkAgents}
            placeholder={agentIds.length ? undefined : 'Choose agents of this project'}
          />
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={onClose}>
              {editable ? 'Cancel' : 'Close'}
            </Button>
            {editable ? (
              <Button type="submit" loading={save.isPending}>
                {identity ? 'Save identity' : 'Create identity'}
              </Button>
            ) : null}
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
