import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, ErrorNotice, Group, NativeSelect, Skeleton, Stack, Text, useFormatters } from '@engram/console-kit';
import { adminApi, adminKeys, type BillingMethod, type BillingSettings } from './admin-api.js';

const TIERS: Array<BillingSettings['billingTier']> = ['free', 'pro', 'scale', 'enterprise'];

const PRICING_MODELS: Array<{ value: BillingSettings['pricingModel']; label: string }> = [
  { value: 'prepay', label: 'Prepay: runs need credits bought first' },
  { value: 'cpm', label: 'Usage (cpm): metered and invoiced afterwards' },
];

const METHODS: Array<{ value: BillingMethod['billingMethod']; label: string }> = [
  { value: 'stripe_managed', label: 'Cards through Stripe' },
  { value: 'enterprise', label: 'Enterprise: invoiced under a contract' },
];

/** The form once the current settings are known, so its fields start from them. */
function BillingSettingsForm({ organizationId, current }: { organizationId: string; current: BillingSettings }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(current);
  const save = useMutation({
    mutationFn: () => adminApi.setBillingSettings(organizationId, draft),
    onSuccess: async (saved) => {
      queryClient.setQueryData([...adminKeys.organization(organizationId), 'billing-settings'], saved);
      // The organizations list shows the tier.
      await queryClient.invalidateQueries({ queryKey: ['admin', 'organizations'] });
    },
  });
  const changed = draft.billingTier !== current.billingTier || draft.pricingModel !== current.pricingModel;
  return (
    <Stack gap="xs">
      <Group align="flex-end">
        <NativeSelect
          label="Tier"
          data={TIERS}
          value={draft.billingTier}
          onChange={(event) => setDraft({ ...draft, billingTier: event.currentTarget.value as BillingSettings['billingTier'] })}
        />
        <NativeSelect
          label="Pricing model"
          data={PRICING_MODELS}
          value={draft.pricingModel}
          onChange={(event) => setDraft({ ...draft, pricingModel: event.currentTarget.value as BillingSettings['pricingModel'] })}
        />
        <Button disabled={!changed} loading={save.isPending} onClick={() => save.mutate()}>
          Save billing settings
        </Button>
      </Group>
      {save.error ? <ErrorNotice error={save.error} title="The billing settings were not saved" /> : null}
    </Stack>
  );
}

function BillingMethodForm({ organizationId, current }: { organizationId: string; current: BillingMethod }) {
  const queryClient = useQueryClient();
  const format = useFormatters();
  const key = [...adminKeys.organization(organizationId), 'billing-method'];
  const store = (saved: BillingMethod) => queryClient.setQueryData(key, saved);
  const change = useMutation({ mutationFn: (method: BillingMethod['billingMethod']) => adminApi.setBillingMethod(organizationId, method), onSuccess: store });
  const refresh = useMutation({ mutationFn: () => adminApi.refreshBillingMethod(organizationId), onSuccess: store });
  return (
    <Stack gap="xs">
      <Group align="flex-end">
        <NativeSelect
          label="Billing method"
          data={METHODS}
          value={current.billingMethod}
          disabled={change.isPending}
          onChange={(event) => change.mutate(event.currentTarget.value as BillingMethod['billingMethod'])}
        />
        <Button variant="default" loading={refresh.isPending} onClick={() => refresh.mutate()}>
          Refresh from payment provider
        </Button>
      </Group>
      <Text size="xs" c="dimmed" data-testid="billing-method-details">
        Default card: {current.defaultPaymentMethodId ?? 'none'} · last refreshed {current.refreshedAt ? format.relative(current.refreshedAt) : 'never'}
      </Text>
      {change.error ? <ErrorNotice error={change.error} title="The billing method was not changed" /> : null}
      {refresh.error ? <ErrorNotice error={refresh.error} title="The billing method was not refreshed" /> : null}
    </Stack>
  );
}

/** How the organization pays: its tier and pricing model, and its billing method. */
export function OrganizationBilling({ organizationId }: { organizationId: string }) {
  const key = adminKeys.organization(organizationId);
  const settings = useQuery({ queryKey: [...key, 'billing-settings'], queryFn: () => adminApi.billingSettings(organizationId) });
  const method = useQuery({ queryKey: [...key, 'billing-method'], queryFn: () => adminApi.billingMethod(organizationId) });
  return (
    <Card withBorder radius="md" data-testid="organization-billing">
      <Text fw={600} mb="sm">
        Billing
      </Text>
      <Stack>
        {settings.error ? <ErrorNotice error={settings.error} onRetry={() => void settings.refetch()} /> : null}
        {settings.data ? <BillingSettingsForm key={JSON.stringify(settings.data)} organizationId={organizationId} current={settings.data} /> : <Skeleton h={60} />}
        {method.error ? <ErrorNotice error={method.error} onRetry={() => void method.refetch()} /> : null}
        {method.data ? <BillingMethodForm organizationId={organizationId} current={method.data} /> : <Skeleton h={60} />}
      </Stack>
    </Card>
  );
}
