import { useState } from 'react';
import { useMutation, useQuery, useQueryClient, type UseMutationResult } from '@tanstack/react-query';
import { Alert, Button, ErrorNotice, Group, Skeleton, Stack, Text } from '@engram/console-kit';
import { NumberInput, Switch } from '@engram/console-kit/widgets';
import { billingApi, billingKeys, CREDIT_DOLLARS, type AutoTopUp, type AutoTopUpState } from './billing-api.js';
import { Section } from './shared.js';

type Draft = { threshold: number | string; refillAmount: number | string; maxMonthlySpend: number | string; enabled: boolean };

const toDraft = (state: AutoTopUpState): Draft => ({
  threshold: state.threshold,
  refillAmount: state.refillAmount,
  maxMonthlySpend: state.maxMonthlySpend ?? '',
  enabled: state.enabled,
});

/** The settings to send, or what is wrong with the draft. */
function settingsOf(draft: Draft): { settings: AutoTopUp } | { problem: string } {
  if (typeof draft.threshold !== 'number' || draft.threshold < 0) return { problem: 'The threshold is a number of credits, 0 or more' };
  if (typeof draft.refillAmount !== 'number' || draft.refillAmount <= 0) return { problem: 'The refill is a number of credits above 0' };
  if (draft.maxMonthlySpend !== '' && (typeof draft.maxMonthlySpend !== 'number' || draft.maxMonthlySpend <= 0)) {
    return { problem: 'The monthly cap is a number of credits above 0, or empty for none' };
  }
  return {
    settings: {
      threshold: draft.threshold,
      refillAmount: draft.refillAmount,
      maxMonthlySpend: draft.maxMonthlySpend === '' ? null : Number(draft.maxMonthlySpend),
      enabled: draft.enabled,
    },
  };
}

type SaveMutation = UseMutationResult<AutoTopUpState, Error, AutoTopUp>;

/** The form, started from the saved settings (it is made again when they change). */
function AutoTopUpForm({ current, save }: { current: AutoTopUpState; save: SaveMutation }) {
  const [draft, setDraft] = useState(() => toDraft(current));
  const checked = settingsOf(draft);
  const changed = JSON.stringify(draft) !== JSON.stringify(toDraft(current));
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if ('settings' in checked) save.mutate(checked.settings);
      }}
    >
      <Stack gap="sm">
        {current.disabledReason ? (
          <Alert color="orange" variant="light" title="Auto top-up turned itself off" data-testid="auto-top-up-disabled">
            {current.disabledReason}
          </Alert>
        ) : null}
        {save.error ? <ErrorNotice error={save.error} title="Auto top-up was not saved" /> : null}
        <Switch
          label="Refill credits automatically from the default card"
          checked={draft.enabled}
          onChange={(event) => setDraft({ ...draft, enabled: event.currentTarget.checked })}
        />
        <Group grow align="flex-start">
          <NumberInput
            label="When the balance falls below"
            description="credits"
            min={0}
            allowDecimal={false}
            value={draft.threshold}
            onChange={(threshold) => setDraft({ ...draft, threshold })}
          />
          <NumberInput
            label="Buy"
            description={typeof draft.refillAmount === 'number' ? `credits ($${(draft.refillAmount * CREDIT_DOLLARS).toFixed(2)})` : 'credits'}
            min={1}
            allowDecimal={false}
            value={draft.refillAmount}
            onChange={(refillAmount) => setDraft({ ...draft, refillAmount })}
          />
        </Group>
        <NumberInput
          label="Spend at most per month"
          description="credits; empty for no cap"
          min={1}
          allowDecimal={false}
          value={draft.maxMonthlySpend}
          onChange={(maxMonthlySpend) => setDraft({ ...draft, maxMonthlySpend })}
        />
        {'problem' in checked ? (
          <Text size="sm" c="red">
            {checked.problem}
          </Text>
        ) : null}
        {save.isSuccess && !changed ? (
          <Text size="sm" c="green" data-testid="auto-top-up-saved">
            Saved.
          </Text>
        ) : null}
        <Group justify="flex-end">
          <Button type="submit" disabled={!changed || 'problem' in checked} loading={save.isPending}>
            Save auto top-up
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** Auto top-up: a refill from the default card when a step takes the balance below the threshold. */
export function AutoTopUpCard() {
  const queryClient = useQueryClient();
  const state = useQuery({ queryKey: billingKeys.autoTopUp, queryFn: billingApi.autoTopUp });
  const save = useMutation({
    mutationFn: (settings: AutoTopUp) => billingApi.setAutoTopUp(settings),
    onSuccess: (saved) => queryClient.setQueryData(billingKeys.autoTopUp, saved),
  });
  return (
    <Section title="Auto top-up" testId="billing-auto-top-up">
      {state.error ? <ErrorNotice error={state.error} onRetry={() => void state.refetch()} /> : null}
      {state.data ? <AutoTopUpForm key={JSON.stringify(state.data)} current={state.data} save={save} /> : state.isPending ? <Skeleton h={180} /> : null}
    </Section>
  );
}
