import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, ErrorNotice, Group, Modal, Stack, Text } from '@engram/console-kit';
import { Checkbox, NumberInput } from '@engram/console-kit/widgets';
import { useOrganizationId } from '../templates/template-queries.js';
import { TemplateVersionSelect } from '../templates/template-version-select.js';
import type { TemplateVersion } from '../templates/template-types.js';
import { givenValues, unfilledVariables, VariableFields } from '../templates/variable-fields.js';
import { abTestKeys } from './ab-test-queries.js';
import { abTestsApi, type AbTest, type AbTestArmResult } from './ab-tests-api.js';

/** Attaches a saved version of the test's template as an arm, with its weight in the split. */
export function AttachArmModal({ abTest, onClose }: { abTest: AbTest; onClose: () => void }) {
  const queryClient = useQueryClient();
  const organizationId = useOrganizationId();
  const [templateName, setTemplateName] = useState<string | null>(null);
  const [version, setVersion] = useState<TemplateVersion | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [weight, setWeight] = useState<number | string>(50);
  const variables = version?.agentState.memoryVariables ?? [];
  const attach = useMutation({
    mutationFn: () => abTestsApi.attach(abTest.id, { templateName: templateName!, weight: Number(weight), memoryVariables: givenValues(values) }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: abTestKeys.abTest(organizationId, abTest.id) });
      onClose();
    },
  });
  return (
    <Modal opened onClose={onClose} title={`Attach a version to ${abTest.name}`} centered>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          attach.mutate();
        }}
      >
        <Stack>
          {attach.error ? <ErrorNotice error={attach.error} title="The version was not attached" /> : null}
          <Text size="sm" c="dimmed">
            Every arm is a saved version of one template. New users are split between the arms in proportion to their weights.
          </Text>
          <TemplateVersionSelect
            onChange={(slug, chosen) => {
              setTemplateName(slug);
              setVersion(chosen);
              setValues({});
            }}
          />
          <VariableFields variables={variables} values={values} onChange={setValues} what="the agents this arm makes (a user's own values come first)" />
          <NumberInput label="Weight" min={0} max={1000} allowDecimal={false} value={weight} onChange={setWeight} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={attach.isPending} disabled={!templateName || unfilledVariables(variables, values).length > 0}>
              Attach version
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/**
 * Stops the test, asking first: no new user is split any more. With a significant winner it can also be promoted:
 * its version becomes the template's deployed one and every agent of the template is migrated to it.
 */
export function StopAbTestModal({ abTest, winner, onClose }: { abTest: AbTest; winner: AbTestArmResult | null; onClose: () => void }) {
  const queryClient = useQueryClient();
  const organizationId = useOrganizationId();
  const [promote, setPromote] = useState(winner !== null);
  const stop = useMutation({
    mutationFn: () => abTestsApi.stop(abTest.id, promote),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: abTestKeys.all(organizationId) });
      onClose();
    },
  });
  return (
    <Modal opened onClose={onClose} title={`Stop ${abTest.name}?`} centered>
      <Stack>
        {stop.error ? <ErrorNotice error={stop.error} title="The A/B test was not stopped" /> : null}
        <Text size="sm">No new user is split between the arms once the test stops; the agents made for its users stay theirs. This cannot be undone.</Text>
        <Checkbox
          label={winner ? `Promote ${winner.templateName}: deploy it and migrate every agent of the template to it` : 'Promote the winner (no arm is significantly better yet)'}
          checked={promote}
          disabled={!winner}
          onChange={(event) => setPromote(event.currentTarget.checked)}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color="red" loading={stop.isPending} onClick={() => stop.mutate()}>
            {promote ? 'Stop and promote' : 'Stop test'}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
