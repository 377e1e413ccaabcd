import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ActionIcon, Button, ErrorNotice, Group, Modal, Skeleton, Stack, Table, Text } from '@engram/console-kit';
import { NumberInput } from '@engram/console-kit/widgets';
import { IconTrash } from '@tabler/icons-react';
import { adminApi, adminKeys, type RegisteredModel, type StepCost } from './admin-api.js';

type Draft = Array<{ maxContextWindowSize: number | string; cost: number | string }>;

const isWholeNumber = (value: number | string, minimum: number) => typeof value === 'number' && Number.isInteger(value) && value >= minimum;

/** The rows once loaded: what a step of the model costs, in credits, up to each context window size. */
function StepCostsForm({ model, current, onClose }: { model: RegisteredModel; current: StepCost[]; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(current);
  const save = useMutation({
    mutationFn: () => adminApi.setStepCosts(model.id, draft.map((row) => ({ maxContextWindowSize: Number(row.maxContextWindowSize), cost: Number(row.cost) }))),
    onSuccess: (saved) => {
      queryClient.setQueryData(adminKeys.stepCosts(model.id), saved);
      onClose();
    },
  });
  const update = (index: number, changes: Partial<Draft[number]>) => setDraft(draft.map((row, at) => (at === index ? { ...row, ...changes } : row)));
  const sizes = draft.map((row) => row.maxContextWindowSize);
  const valid =
    draft.length > 0 &&
    draft.every((row) => isWholeNumber(row.maxContextWindowSize, 1) && isWholeNumber(row.cost, 0)) &&
    new Set(sizes).size === sizes.length;
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        A step costs the credits of the first row whose context window is at least the agent&apos;s; larger windows pay the last row.
      </Text>
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Context window up to (tokens)</Table.Th>
            <Table.Th>Credits per step</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {draft.map((row, index) => (
            <Table.Tr key={index} data-testid="step-cost-row">
              <Table.Td>
                <NumberInput aria-label={`Context window of row ${index + 1}`} min={1} allowDecimal={false} value={row.maxContextWindowSize} onChange={(value) => update(index, { maxContextWindowSize: value })} />
              </Table.Td>
              <Table.Td>
                <NumberInput aria-label={`Cost of row ${index + 1}`} min={0} allowDecimal={false} value={row.cost} onChange={(value) => update(index, { cost: value })} />
              </Table.Td>
              <Table.Td>
                <ActionIcon variant="subtle" color="gray" aria-label={`Remove row ${index + 1}`} onClick={() => setDraft(draft.filter((_, at) => at !== index))}>
                  <IconTrash size={16} />
                </ActionIcon>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {save.error ? <ErrorNotice error={save.error} title="The step costs were not saved" /> : null}
      <Group justify="space-between">
        <Button variant="subtle" onClick={() => setDraft([...draft, { maxContextWindowSize: '', cost: '' }])}>
          Add row
        </Button>
        <Group>
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button disabled={!valid} loading={save.isPending} onClick={() => save.mutate()}>
            Save step costs
          </Button>
        </Group>
      </Group>
    </Stack>
  );
}

/** Edits what a step of one inference model costs (version 1 step costs). */
export function StepCostsDialog({ model, onClose }: { model: RegisteredModel; onClose: () => void }) {
  const costs = useQuery({ queryKey: adminKeys.stepCosts(model.id), queryFn: () => adminApi.stepCosts(model.id) });
  return (
    <Modal opened onClose={onClose} title={`Step costs of ${model.name}`} size="lg" centered>
      {costs.error ? <ErrorNotice error={costs.error} onRetry={() => void costs.refetch()} /> : null}
      {costs.data ? <StepCostsForm model={model} current={costs.data.data} onClose={onClose} /> : <Skeleton h={120} />}
    </Modal>
  );
}
