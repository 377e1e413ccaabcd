import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Card, ErrorNotice, Group, PageHeader, Skeleton, Stack, Table, Text, TextInput, useFormatters } from '@engram/console-kit';
import { NumberInput, Switch } from '@engram/console-kit/widgets';
import { adminApi, adminKeys, type GiftCode, type RegisteredModel } from './admin-api.js';
import { StepCostsDialog } from './step-costs.js';

/** The inference model registry: register a model, disable one (new runs on it are refused) or enable it again, set what its steps cost. */
export function ModelsPage() {
  const queryClient = useQueryClient();
  const [pricing, setPricing] = useState<RegisteredModel | null>(null);
  const [modelName, setModelName] = useState('');
  const [modelEndpoint, setModelEndpoint] = useState('');
  const models = useQuery({ queryKey: adminKeys.models, queryFn: adminApi.models });
  const refresh = () => queryClient.invalidateQueries({ queryKey: adminKeys.models });
  const register = useMutation({
    mutationFn: () => adminApi.registerModel(modelName.trim(), modelEndpoint.trim()),
    onSuccess: async () => {
      setModelName('');
      setModelEndpoint('');
      await refresh();
    },
  });
  const toggle = useMutation({ mutationFn: (input: { id: string; disabled: boolean }) => adminApi.setModelDisabled(input.id, input.disabled), onSuccess: refresh });
  return (
    <Stack>
      <PageHeader title="Models" description="A disabled model is refused for new runs." />
      {pricing ? <StepCostsDialog model={pricing} onClose={() => setPricing(null)} /> : null}
      <Card withBorder radius="md">
        <Group align="flex-end">
          <TextInput label="Model name" placeholder="openai/gpt-4o-mini" value={modelName} onChange={(event) => setModelName(event.currentTarget.value)} />
          <TextInput label="Endpoint" placeholder="https://api.openai.com/v1" value={modelEndpoint} onChange={(event) => setModelEndpoint(event.currentTarget.value)} />
          <Button disabled={!modelName.trim() || !modelEndpoint.trim()} loading={register.isPending} onClick={() => register.mutate()}>
            Register model
          </Button>
        </Group>
        {register.error ? <ErrorNotice error={register.error} /> : null}
      </Card>
      {models.error ? <ErrorNotice error={models.error} onRetry={() => void models.refetch()} /> : null}
      {toggle.error ? <ErrorNotice error={toggle.error} /> : null}
      {models.isPending ? <Skeleton h={120} /> : null}
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Model</Table.Th>
            <Table.Th>Brand</Table.Th>
            <Table.Th>Tier</Table.Th>
            <Table.Th>Enabled</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {models.data?.models.map((model) => (
            <Table.Tr key={model.id} data-testid="model-row">
              <Table.Td ff="monospace">{model.name}</Table.Td>
              <Table.Td>{model.brand}</Table.Td>
              <Table.Td>{model.tier}</Table.Td>
              <Table.Td>
                <Switch
                  aria-label={`${model.name} enabled`}
                  checked={model.disabledAt === null}
                  onChange={(event) => toggle.mutate({ id: model.id, disabled: !event.currentTarget.checked })}
                />
              </Table.Td>
              <Table.Td>
                <Button size="xs" variant="light" onClick={() => setPricing(model)}>
                  Step costs
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

function Redemptions({ giftCode }: { giftCode: GiftCode }) {
  const format = useFormatters();
  const redemptions = useQuery({ queryKey: adminKeys.redemptions(giftCode.id), queryFn: () => adminApi.redemptions(giftCode.id) });
  if (redemptions.error) return <ErrorNotice error={redemptions.error} />;
  if (!redemptions.data) return <Skeleton h={40} />;
  if (redemptions.data.redemptions.length === 0) return <Text size="sm" c="dimmed">No redemptions yet.</Text>;
  return (
    <Table data-testid="redemptions">
      <Table.Tbody>
        {redemptions.data.redemptions.map((redemption) => (
          <Table.Tr key={`${redemption.organizationId}-${redemption.redeemedAt}`}>
            <Table.Td>{redemption.organizationName}</Table.Td>
            <Table.Td>{redemption.amount} credits</Table.Td>
            <Table.Td>{format.relative(redemption.redeemedAt)}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function ReferralSettings() {
  const queryClient = useQueryClient();
  const configuration = useQuery({ queryKey: adminKeys.referrals, queryFn: adminApi.referralConfiguration });
  const save = useMutation({
    mutationFn: adminApi.setReferralConfiguration,
    onSuccess: (saved) => queryClient.setQueryData(adminKeys.referrals, saved),
  });
  if (!configuration.data) return configuration.error ? <ErrorNotice error={configuration.error} /> : <Skeleton h={60} />;
  const current = configuration.data;
  return (
    <Card withBorder radius="md">
      <Text fw={600} mb="sm">
        Referral programme
      </Text>
      <Group align="flex-end">
        <Switch label="Enabled" checked={current.enabled} onChange={(event) => save.mutate({ enabled: event.currentTarget.checked })} />
        <NumberInput label="Referrer reward" min={0} value={current.referrerRewardAmount} onBlur={(event) => save.mutate({ referrerRewardAmount: Number(event.currentTarget.value) })} />
        <NumberInput label="Referred reward" min={0} value={current.referredRewardAmount} onBlur={(event) => save.mutate({ referredRewardAmount: Number(event.currentTarget.value) })} />
        <NumberInput label="Max reward per organization" min={0} value={current.maxReferralRewardPerOrg} onBlur={(event) => save.mutate({ maxReferralRewardPerOrg: Number(event.currentTarget.value) })} />
      </Group>
      {save.error ? <ErrorNotice error={save.error} /> : null}
    </Card>
  );
}

/** Gift codes with their redemptions, and the referral programme's settings. */
export function GiftCodesPage() {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState({ name: '', code: '', description: '', redemptionAmount: 1000 as number | string });
  const [open, setOpen] = useState<string | null>(null);
  const giftCodes = useQuery({ queryKey: adminKeys.giftCodes, queryFn: adminApi.giftCodes });
  const refresh = () => queryClient.invalidateQueries({ queryKey: adminKeys.giftCodes });
  const create = useMutation({
    mutationFn: () => adminApi.createGiftCode({ ...draft, redemptionAmount: Number(draft.redemptionAmount) }),
    onSuccess: async () => {
      setDraft({ name: '', code: '', description: '', redemptionAmount: 1000 });
      await refresh();
    },
  });
  const toggle = useMutation({ mutationFn: (input: { id: string; enabled: boolean }) => adminApi.setGiftCodeEnabled(input.id, input.enabled), onSuccess: refresh });
  const complete = draft.name.trim() && draft.code.trim() && draft.description.trim() && Number(draft.redemptionAmount) > 0;
  return (
    <Stack>
      <PageHeader title="Gift codes" description="Codes organizations redeem for credits." />
      <Card withBorder radius="md">
        <Group align="flex-end">
          <TextInput label="Name" value={draft.name} onChange={(event) => setDraft({ ...draft, name: event.currentTarget.value })} />
          <TextInput label="Code" value={draft.code} onChange={(event) => setDraft({ ...draft, code: event.currentTarget.value })} />
          <TextInput label="Description" value={draft.description} onChange={(event) => setDraft({ ...draft, description: event.currentTarget.value })} />
          <NumberInput label="Credits" min={1} value={draft.redemptionAmount} onChange={(value) => setDraft({ ...draft, redemptionAmount: value })} w={120} />
          <Button disabled={!complete} loading={create.isPending} onClick={() => create.mutate()}>
            Create gift code
          </Button>
        </Group>
        {create.error ? <ErrorNotice error={create.error} title="The gift code was not created" /> : null}
      </Card>
      {giftCodes.error ? <ErrorNotice error={giftCodes.error} onRetry={() => void giftCodes.refetch()} /> : null}
      {giftCodes.data?.giftCodes.map((giftCode) => (
        <Card key={giftCode.id} withBorder radius="md" data-testid="gift-code">
          <Group justify="space-between">
            <Stack gap={0}>
              <Text fw={600}>
                {giftCode.name} <Text span ff="monospace">{giftCode.code}</Text>
              </Text>
              <Text size="sm" c="dimmed">
                {giftCode.redemptionAmount} credits · used {giftCode.uses}
                {giftCode.maxUses === null ? '' : ` of ${giftCode.maxUses}`}
              </Text>
            </Stack>
            <Group>
              {giftCode.disabledAt ? <Badge color="gray">Disabled</Badge> : <Badge color="green" variant="light">Enabled</Badge>}
              <Button size="xs" variant="default" onClick={() => toggle.mutate({ id: giftCode.id, enabled: giftCode.disabledAt !== null })}>
                {giftCode.disabledAt ? 'Enable' : 'Disable'}
              </Button>
              <Button size="xs" variant="light" onClick={() => setOpen(open === giftCode.id ? null : giftCode.id)}>
                {open === giftCode.id ? 'Hide redemptions' : 'Redemptions'}
              </Button>
            </Group>
          </Group>
          {open === giftCode.id ? <Redemptions giftCode={giftCode} /> : null}
        </Card>
      ))}
      <ReferralSettings />
    </Stack>
  );
}
