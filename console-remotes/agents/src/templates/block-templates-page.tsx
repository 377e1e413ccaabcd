import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Badge,
  Button,
  Card,
  ErrorNotice,
  Group,
  Modal,
  PageHeader,
  Skeleton,
  Stack,
  Text,
  TextInput,
  Tooltip,
  useDebouncedValue,
} from '@engram/console-kit';
import { NumberInput, Switch, Textarea } from '@engram/console-kit/widgets';
import { IconPencil, IconPlus, IconSearch, IconTrash } from '@tabler/icons-react';
import { ConfirmDialog } from '../confirm-dialog.js';
import { useMemberPermissions } from '../queries.js';
import { templateKeys, useBlockTemplates, useOrganizationId } from './template-queries.js';
import { templatesApi } from './templates-api.js';
import type { BlockTemplate, BlockTemplateFields } from './template-types.js';

const EMPTY: BlockTemplateFields = { label: '', value: '', limit: 2000, description: null, preserveOnMigration: false, readOnly: false };

/** Creates a block template or edits one; the API's validation messages ('Label is required', …) show as they come. */
function BlockTemplateModal({ editing, onClose }: { editing: BlockTemplate | null; onClose: () => void }) {
  const queryClient = useQueryClient();
  const organizationId = useOrganizationId();
  const [draft, setDraft] = useState<BlockTemplateFields>(editing ?? EMPTY);
  const save = useMutation({
    mutationFn: () => (editing ? templatesApi.updateBlockTemplate(editing.id, draft) : templatesApi.createBlockTemplate(draft)),
    onSuccess: async () => {
      // An edit reaches the templates it is attached to as well.
      await queryClient.invalidateQueries({ queryKey: templateKeys.all(organizationId) });
      onClose();
    },
  });
  return (
    <Modal opened onClose={onClose} title={editing ? `Edit ${editing.label}` : 'New block template'} centered>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <Stack>
          {save.error ? <ErrorNotice error={save.error} title="The block template was not saved" /> : null}
          <TextInput label="Label" value={draft.label} onChange={(event) => setDraft({ ...draft, label: event.currentTarget.value })} data-autofocus />
          <Textarea label="Value" description="{{variables}} are filled per agent" value={draft.value} onChange={(event) => setDraft({ ...draft, value: event.currentTarget.value })} autosize minRows={3} ff="monospace" />
          <NumberInput label="Limit (characters)" value={draft.limit} onChange={(value) => setDraft({ ...draft, limit: typeof value === 'number' ? value : Number(value) })} step={500} />
          <TextInput label="Description" value={draft.description ?? ''} onChange={(event) => setDraft({ ...draft, description: event.currentTarget.value || null })} />
          <Switch
            label="Keep each agent's value when its agents are migrated"
            checked={draft.preserveOnMigration}
            onChange={(event) => setDraft({ ...draft, preserveOnMigration: event.currentTarget.checked })}
          />
          <Switch label="Read-only for the agent" checked={draft.readOnly} onChange={(event) => setDraft({ ...draft, readOnly: event.currentTarget.checked })} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              {editing ? 'Save' : 'Create'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** Blocks defined once and attached to templates (in a template's editor); each edit reaches every template it is in. */
export function BlockTemplatesPage() {
  const queryClient = useQueryClient();
  const organizationId = useOrganizationId();
  const { can } = useMemberPermissions();
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 250);
  const blockTemplates = useBlockTemplates(debounced);
  const [editing, setEditing] = useState<BlockTemplate | 'new' | null>(null);
  const [deleting, setDeleting] = useState<BlockTemplate | null>(null);
  const remove = useMutation({
    mutationFn: (blockTemplate: BlockTemplate) => templatesApi.deleteBlockTemplate(blockTemplate.id),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: templateKeys.blockTemplates(organizationId) });
      setDeleting(null);
    },
  });
  return (
    <>
      <PageHeader
        title="Block templates"
        description="Memory blocks shared by templates: attach one in a template's editor"
        actions={
          can('create_block_templates') ? (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')}>
              New block template
            </Button>
          ) : null
        }
      />
      {editing ? <BlockTemplateModal editing={editing === 'new' ? null : editing} onClose={() => setEditing(null)} /> : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete ${deleting.label}?`}
          confirmLabel="Delete"
          mutation={remove}
          onConfirm={() => remove.mutate(deleting)}
          onClose={() => {
            remove.reset();
            setDeleting(null);
          }}
        >
          The block template goes; agents made from templates keep their blocks. A block template still attached to a template cannot be deleted.
        </ConfirmDialog>
      ) : null}
      <TextInput
        placeholder="Search by label"
        leftSection={<IconSearch size={16} />}
        value={search}
        onChange={(event) => setSearch(event.currentTarget.value)}
        w={{ base: '100%', sm: 320 }}
        mb="lg"
        aria-label="Search block templates"
      />
      {blockTemplates.error ? <ErrorNotice error={blockTemplates.error} onRetry={() => void blockTemplates.refetch()} /> : null}
      {blockTemplates.isPending ? <Skeleton h={80} /> : null}
      {blockTemplates.data?.blockTemplates.length === 0 ? (
        <Text c="dimmed" size="sm">
          {debounced ? 'No block template matches this label.' : 'No block templates yet.'}
        </Text>
      ) : null}
      <Stack gap="sm">
        {blockTemplates.data?.blockTemplates.map((blockTemplate) => (
          <Card key={blockTemplate.id} withBorder radius="md" p="sm" data-testid="block-template">
            <Group justify="space-between" wrap="nowrap" align="flex-start">
              <Stack gap={4} style={{ minWidth: 0 }}>
                <Group gap={6}>
                  <Badge variant="light" tt="none" ff="monospace">
                    {blockTemplate.label}
                  </Badge>
                  <Text size="xs" c="dimmed">
                    limit {blockTemplate.limit}
                  </Text>
                  {blockTemplate.preserveOnMigration ? (
                    <Badge variant="outline" color="teal" size="xs" tt="none">
                      kept on migration
                    </Badge>
                  ) : null}
                  {blockTemplate.readOnly ? (
                    <Badge variant="outline" size="xs" tt="none">
                      read-only
                    </Badge>
                  ) : null}
                </Group>
                <Text fz="xs" ff="monospace" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }} c={blockTemplate.value ? undefined : 'dimmed'}>
                  {blockTemplate.value || '(empty)'}
                </Text>
              </Stack>
              <Group gap={4} wrap="nowrap">
                {can('update_block_templates') ? (
                  <Tooltip label="Edit">
                    <ActionIcon variant="subtle" aria-label={`Edit ${blockTemplate.label}`} onClick={() => setEditing(blockTemplate)}>
                      <IconPencil size={16} />
                    </ActionIcon>
                  </Tooltip>
                ) : null}
                {can('delete_block_templates') ? (
                  <Tooltip label="Delete">
                    <ActionIcon variant="subtle" color="red" aria-label={`Delete ${blockTemplate.label}`} onClick={() => setDeleting(blockTemplate)}>
                      <IconTrash size={16} />
                    </ActionIcon>
                  </Tooltip>
                ) : null}
              </Group>
            </Group>
          </Card>
        ))}
      </Stack>
    </>
  );
}
