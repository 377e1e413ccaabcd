import { useQuery } from '@tanstack/react-query';
import { ErrorNotice, Group, SimpleGrid, Skeleton, Stack, Text, useFormatters } from '@engram/console-kit';
import { Progress } from '@engram/console-kit/widgets';
import { billingApi, billingKeys, type FullQuotas } from './billing-api.js';
import { Section } from './shared.js';

const QUOTAS: Array<{ key: keyof FullQuotas; label: string; bytes?: true }> = [
  { key: 'premiumInferencesPerMonth', label: 'Premium model requests this month' },
  { key: 'freeInferencesPerMonth', label: 'Free model requests this month' },
  { key: 'agents', label: 'Agents' },
  { key: 'projects', label: 'Projects' },
  { key: 'templates', label: 'Templates' },
  { key: 'dataSources', label: 'Data sources' },
  { key: 'tools', label: 'Tools' },
  { key: 'memoryBlocks', label: 'Memory blocks' },
  { key: 'identities', label: 'Identities' },
  { key: 'apiKeys', label: 'API keys' },
  { key: 'members', label: 'Members' },
  { key: 'storage', label: 'Storage', bytes: true },
];

function bytes(value: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let size = value;
  let unit = 0;
  while (size >= 1024 && unit < units.length - 1) {
    size /= 1024;
    unit++;
  }
  return `${size.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

/** One counted resource against its tier limit; orange from 80 %, red when full. */
function QuotaBar({ label, used, limit, asBytes }: { label: string; used: number; limit: number | null; asBytes: boolean }) {
  const format = useFormatters();
  const show = (value: number) => (asBytes ? bytes(value) : format.number(value));
  const share = limit ? Math.min(100, (used / limit) * 100) : 0;
  const color = share >= 100 ? 'red' : share >= 80 ? 'orange' : 'blue';
  return (
    <Stack gap={4} data-testid="quota" role="group" aria-label={label}>
      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Text size="sm">{label}</Text>
        <Text size="sm" c="dimmed" data-testid="quota-value">
          {limit === null ? `${show(used)} (no limit)` : `${show(used)} of ${show(limit)}`}
        </Text>
      </Group>
      <Progress value={limit === null ? 0 : share} color={color} aria-label={`${label} used`} />
    </Stack>
  );
}

/** What the organization uses of every limit of its tier (spec 000 §9); with billing off, the limits are for reference only. */
export function QuotasCard({ enforced }: { enforced: boolean }) {
  const quotas = useQuery({ queryKey: billingKeys.quotas, queryFn: billingApi.quotas });
  return (
    <Section title={enforced ? "Usage against your plan's limits" : "Usage (the plan's limits are not enforced here)"} testId="billing-quotas">
      {quotas.error ? <ErrorNotice error={quotas.error} onRetry={() => void quotas.refetch()} /> : null}
      {quotas.data ? (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="lg" verticalSpacing="md">
          {QUOTAS.map(({ key, label, bytes: asBytes }) => (
            <QuotaBar key={key} label={label} used={quotas.data[key].used} limit={quotas.data[key].limit} asBytes={asBytes === true} />
          ))}
        </SimpleGrid>
      ) : quotas.isPending ? (
        <Skeleton h={160} />
      ) : null}
    </Section>
  );
}
