import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Alert, Button, CopyField, ErrorNotice, Group, Skeleton, Stack, Text, TextInput, useFormatters } from '@engram/console-kit';
import { billingApi, billingKeys } from './billing-api.js';
import { Section, useRefreshBilling } from './shared.js';

/** Redeeming a gift code for credits; a refusal shows the API's reason (not found, disabled, expired, used up…). */
export function GiftCodeCard() {
  const refresh = useRefreshBilling();
  const [code, setCode] = useState('');
  const redeem = useMutation({
    mutationFn: (value: string) => billingApi.redeem(value),
    onSuccess: async () => {
      setCode('');
      await refresh();
    },
  });
  return (
    <Section title="Gift code" testId="billing-gift-code">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          redeem.mutate(code.trim());
        }}
      >
        <Stack gap="sm">
          {redeem.error ? <ErrorNotice error={redeem.error} title="The gift code was not redeemed" /> : null}
          {redeem.data ? (
            <Text size="sm" c="green" data-testid="gift-code-redeemed">
              {redeem.data.code}: {redeem.data.amount.toLocaleString()} credits added.
            </Text>
          ) : null}
          <Group align="flex-end" gap="xs">
            <TextInput
              label="Code"
              placeholder="WELCOME2026"
              value={code}
              onChange={(event) => {
                setCode(event.currentTarget.value);
                if (redeem.error) redeem.reset();
              }}
              style={{ flex: 1 }}
            />
            <Button type="submit" disabled={!code.trim()} loading={redeem.isPending}>
              Redeem
            </Button>
          </Group>
        </Stack>
      </form>
    </Section>
  );
}

/** The organization's referral link, and who joined through it. */
export function ReferralCard() {
  const format = useFormatters();
  const stats = useQuery({ queryKey: billingKeys.referral, queryFn: billingApi.referralStats });
  const code = stats.data?.code ?? '';
  const programme = useQuery({ queryKey: [...billingKeys.referral, 'open', code], queryFn: () => billingApi.validateReferral(code), enabled: code !== '' });
  const link = `${window.location.origin}/signup?referralCode=${encodeURIComponent(code)}`;
  return (
    <Section title="Referrals" testId="billing-referral">
      {stats.error ? <ErrorNotice error={stats.error} onRetry={() => void stats.refetch()} /> : null}
      {stats.data ? (
        <Stack gap="sm">
          {programme.data?.valid ? (
            <CopyField label="Your referral link" description={`Code ${code}: both organizations get credits when someone signs up with it.`} value={link} />
          ) : programme.data ? (
            <Alert color="gray" variant="light" data-testid="referrals-closed">
              Referral rewards are turned off on this platform right now, so there is no link to share.
            </Alert>
          ) : null}
          <Text size="sm" data-testid="referral-stats">
            {stats.data.usageCount} {stats.data.usageCount === 1 ? 'organization' : 'organizations'} joined · {stats.data.totalRewardsEarned.toLocaleString()}{' '}
            credits earned
          </Text>
          {stats.data.referredOrganizations.map((referred) => (
            <Text key={referred.id} size="xs" c="dimmed">
              {referred.name}, {format.relative(referred.referredAt)}
            </Text>
          ))}
        </Stack>
      ) : stats.isPending ? (
        <Skeleton h={80} />
      ) : null}
    </Section>
  );
}
