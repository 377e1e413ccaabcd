import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, ErrorNotice, Group, Modal, Stack, Text, TextInput, useProject } from '@engram/console-kit';
import { FileButton, NumberInput, Select, Textarea } from '@engram/console-kit/widgets';
import { IconFileUpload } from '@tabler/icons-react';
import { useOrganizationId } from '../templates/template-queries.js';
import { TemplateVersionSelect } from '../templates/template-version-select.js';
import type { TemplateVersion } from '../templates/template-types.js';
import { givenValues, unfilledVariables, VariableFields } from '../templates/variable-fields.js';
import { datasetKeys } from './dataset-queries.js';
import { datasetsApi, type Dataset, type DatasetItem, type DatasetRun } from './datasets-api.js';
import { draftOf, EMPTY_ITEM_DRAFT, fieldsOf, type ItemDraft } from './item-draft.js';

/** A new dataset, or a rename of one (with its description). */
export function DatasetModal({ dataset, onClose, onSaved }: { dataset?: Dataset; onClose: () => void; onSaved?: (saved: Dataset) => void }) {
  const project = useProject();
  const queryClient = useQueryClient();
  const organizationId = useOrganizationId();
  const [name, setName] = useState(dataset?.name ?? '');
  const [description, setDescription] = useState(dataset?.description ?? '');
  const save = useMutation({
    mutationFn: () => {
      const fields = { name, description: description.trim() ? description : null };
      return dataset ? datasetsApi.update(dataset.id, fields) : datasetsApi.create({ ...fields, projectId: project.id });
    },
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: datasetKeys.all(organizationId) });
      onSaved?.(saved);
      onClose();
    },
  });
  const title = dataset ? `Rename ${dataset.name}` : 'New dataset';
  return (
    <Modal opened onClose={onClose} title={title} centered>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <Stack>
          {save.error ? <ErrorNotice error={save.error} title={dataset ? 'The dataset was not renamed' : 'The dataset was not created'} /> : null}
          <TextInput label="Name" value={name} onChange={(event) => setName(event.currentTarget.value)} data-autofocus />
          <Textarea label="Description" autosize minRows={2} value={description} onChange={(event) => setDescription(event.currentTarget.value)} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              {dataset ? 'Save' : 'Create dataset'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

const SCORERS = [
  { value: 'auto', label: 'Automatic (exact with an expected answer, the grader with a note)' },
  { value: 'exact', label: 'Exact: the answer equals the expected one' },
  { value: 'contains', label: 'Contains: the answer holds the expected one' },
  { value: 'llm', label: 'Grader: a model judges the answer by the note' },
];

/** Adds an item to a dataset, or edits one: the message sent, and what its answer is scored against. */
export function ItemModal({ datasetId, item, onClose }: { datasetId: string; item?: DatasetItem; onClose: () => void }) {
  const queryClient = useQueryClient();
  const organizationId = useOrganizationId();
  const [draft, setDraft] = useState<ItemDraft>(item ? draftOf(item) : EMPTY_ITEM_DRAFT);
  const change = (patch: Partial<ItemDraft>) => setDraft((current) => ({ ...current, ...patch }));
  const save = useMutation({
    mutationFn: () => (item ? datasetsApi.updateItem(datasetId, item.id, fieldsOf(draft)) : datasetsApi.createItem(datasetId, fieldsOf(draft))),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: datasetKeys.dataset(organizationId, datasetId) });
      onClose();
    },
  });
  return (
    <Modal opened onClose={onClose} title={item ? 'Edit item' : 'New item'} centered size="lg">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <Stack>
          {save.error ? <ErrorNotice error={save.error} title="The item was not saved" /> : null}
          <Select
            label="Role"
            data={[
              { value: 'user', label: 'User message' },
              { value: 'system', label: 'System message' },
            ]}
            value={draft.role}
            onChange={(value) => change({ role: value === 'system' ? 'system' : 'user' })}
            allowDeselect={false}
          />
          <Textarea label="Message" autosize minRows={3} value={draft.content} onChange={(event) => change({ content: event.currentTarget.value })} data-autofocus />
          <TextInput label="Expected answer" description="Optional" value={draft.expectedAnswer} onChange={(event) => change({ expectedAnswer: event.currentTarget.value })} />
          <Textarea
            label="Grader note"
            description="Optional: what a good answer does, for the grader model"
            autosize
            minRows={2}
            value={draft.graderNote}
            onChange={(event) => change({ graderNote: event.currentTarget.value })}
          />
          <Select label="Scorer" data={SCORERS} value={draft.scorer} onChange={(value) => change({ scorer: (value ?? 'auto') as ItemDraft['scorer'] })} allowDeselect={false} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              {item ? 'Save item' : 'Add item'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** Adds the items of a JSONL text (pasted, or read from a file), all of them or none. */
export function ImportModal({ datasetId, onClose }: { datasetId: string; onClose: () => void }) {
  const queryClient = useQueryClient();
  const organizationId = useOrganizationId();
  const [jsonl, setJsonl] = useState('');
  const importing = useMutation({
    mutationFn: () => datasetsApi.importItems(datasetId, jsonl),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: datasetKeys.dataset(organizationId, datasetId) });
    },
  });
  return (
    <Modal opened onClose={onClose} title="Import items" centered size="lg">
      <Stack>
        {importing.error ? <ErrorNotice error={importing.error} title="Nothing was imported" /> : null}
        {importing.data ? (
          <Text size="sm" c="teal" data-testid="imported">
            {importing.data.imported} {importing.data.imported === 1 ? 'item' : 'items'} imported
          </Text>
        ) : null}
        <Text size="sm" c="dimmed">
          One item per line, as the export writes them: {'{"createMessage":{"role":"user","content":"…"},"expectedAnswer":"…"}'}
        </Text>
        <Textarea label="JSONL" autosize minRows={6} maxRows={16} value={jsonl} onChange={(event) => setJsonl(event.currentTarget.value)} styles={{ input: { fontFamily: 'monospace' } }} />
        <Group justify="space-between">
          <FileButton accept=".jsonl,.ndjson,application/x-ndjson,text/plain" onChange={(file) => void file?.text().then(setJsonl)}>
            {(props) => (
              <Button variant="default" leftSection={<IconFileUpload size={16} />} {...props}>
                Choose a file
              </Button>
            )}
          </FileButton>
          <Group>
            <Button variant="default" onClick={onClose}>
              {importing.data ? 'Done' : 'Cancel'}
            </Button>
            <Button loading={importing.isPending} disabled={!jsonl.trim()} onClick={() => importing.mutate()}>
              Import
            </Button>
          </Group>
        </Group>
      </Stack>
    </Modal>
  );
}

/** Starts a run of every item against a saved version of one of the project's templates. */
export function RunModal({ dataset, onClose, onStarted }: { dataset: Dataset; onClose: () => void; onStarted: (run: DatasetRun) => void }) {
  const queryClient = useQueryClient();
  const organizationId = useOrganizationId();
  const [templateVersion, setTemplateVersion] = useState<string | null>(null);
  const [version, setVersion] = useState<TemplateVersion | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [concurrency, setConcurrency] = useState<number>(4);
  const variables = version?.agentState.memoryVariables ?? [];
  const start = useMutation({
    mutationFn: () => datasetsApi.startRun(dataset.id, { templateVersion: templateVersion!, concurrency, memoryVariables: givenValues(values) }),
    onSuccess: async (run) => {
      await queryClient.invalidateQueries({ queryKey: datasetKeys.runs(organizationId, dataset.id) });
      onStarted(run);
    },
  });
  return (
    <Modal opened onClose={onClose} title={`Run ${dataset.name}`} centered>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          start.mutate();
        }}
      >
        <Stack>
          {start.error ? <ErrorNotice error={start.error} title="The run did not start" /> : null}
          <Text size="sm" c="dimmed">
            Each item is sent to a fresh agent of its own made from the version; the answers are scored as they come.
          </Text>
          <TemplateVersionSelect
            onChange={(slug, chosen) => {
              setTemplateVersion(slug);
              setVersion(chosen);
              setValues({});
            }}
          />
          <VariableFields variables={variables} values={values} onChange={setValues} what="every item's agent" />
          <NumberInput label="Items at once" min={1} max={20} value={concurrency} onChange={(value) => setConcurrency(typeof value === 'number' ? value : 1)} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={start.isPending} disabled={!templateVersion || unfilledVariables(variables, values).length > 0}>
              Start run
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
