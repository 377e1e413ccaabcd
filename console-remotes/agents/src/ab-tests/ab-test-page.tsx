import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Badge,
  Box,
  Button,
  Card,
  Code,
  ErrorNotice,
  Group,
  Link,
  PageHeader,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
  Tooltip,
  useFormatters,
  useNavigate,
  useParams,
} from '@engram/console-kit';
import { NumberInput } from '@engram/console-kit/widgets';
import { IconPlayerStop, IconPlus, IconTrash, IconTrophy } from '@tabler/icons-react';
import { ConfirmDialog } from '../confirm-dialog.js';
import { useMemberPermissions } from '../queries.js';
import { useOrganizationId } from '../templates/template-queries.js';
import { AttachArmModal, StopAbTestModal } from './ab-test-dialogs.js';
import { abTestKeys, useAbTest, useAbTestArms, useAbTestResults } from './ab-test-queries.js';
import { abTestsApi, type AbTest, type AbTestArm, type AbTestArmResult } from './ab-tests-api.js';
import { formatInterval, intervalGeometry, trafficShares } from './feedback-interval.js';

/** The feedback rate's 95% interval drawn on a 0 to 100% scale, with the rate as a mark inside it. */
function IntervalBar({ interval }: { interval: AbTestArmResult['feedbackRate'] }) {
  const { bandLeft, bandWidth, marker } = intervalGeometry(interval);
  return (
    <Box
      pos="relative"
      h={10}
      w={160}
      bg="var(--mantine-color-default-border)"
      style={{ borderRadius: 5 }}
      role="img"
      aria-label={`Feedback rate ${formatInterval(interval)}`}
      data-testid="interval-bar"
      data-low={interval.low}
      data-high={interval.high}
    >
      <Box pos="absolute" top={0} h={10} left={`${bandLeft}%`} w={`${bandWidth}%`} bg="var(--mantine-color-blue-light-color)" opacity={0.45} style={{ borderRadius: 5 }} data-testid="interval-band" />
      {marker === null ? null : <Box pos="absolute" top={-2} h={14} w={3} left={`calc(${marker}% - 1px)`} bg="var(--mantine-color-blue-filled)" data-testid="interval-marker" />}
    </Box>
  );
}

function ArmRow({ abTest, arm, share, users }: { abTest: AbTest; arm: AbTestArm; share: number; users: number }) {
  const queryClient = useQueryClient();
  const organizationId = useOrganizationId();
  const { can } = useMemberPermissions();
  const [weight, setWeight] = useState<number | string>(arm.weight);
  const [detaching, setDetaching] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: abTestKeys.abTest(organizationId, abTest.id) });
  const saveWeight = useMutation({ mutationFn: () => abTestsApi.setWeight(abTest.id, arm.id, Number(weight)), onSuccess: refresh });
  const detach = useMutation({
    mutationFn: () => abTestsApi.detach(abTest.id, arm.id),
    onSuccess: async () => {
      await refresh();
      setDetaching(false);
    },
  });
  const editable = abTest.status === 'running' && can('update_ab_tests');
  return (
    <Table.Tr data-testid="ab-arm" data-template={arm.templateName}>
      <Table.Td>
        <Text size="sm" fw={600}>
          {arm.templateName}
        </Text>
      </Table.Td>
      <Table.Td>
        {editable ? (
          <Group gap="xs" wrap="nowrap">
            <NumberInput aria-label={`Weight of ${arm.templateName}`} min={0} max={1000} allowDecimal={false} value={weight} onChange={setWeight} w={90} size="xs" />
            {Number(weight) !== arm.weight ? (
              <Button size="xs" variant="light" loading={saveWeight.isPending} onClick={() => saveWeight.mutate()}>
                Save
              </Button>
            ) : null}
          </Group>
        ) : (
          <Text size="sm">{arm.weight}</Text>
        )}
        {saveWeight.error ? <ErrorNotice error={saveWeight.error} title="The weight was not saved" /> : null}
      </Table.Td>
      <Table.Td>
        <Text size="sm" data-testid="arm-share">
          {Math.round(share * 100)}%
        </Text>
      </Table.Td>
      <Table.Td>
        {editable ? (
          <Tooltip label={users > 0 ? 'Users have landed on this arm; stop the test instead' : 'Detach'}>
            <ActionIcon variant="subtle" color="red" aria-label={`Detach ${arm.templateName}`} onClick={() => setDetaching(true)}>
              <IconTrash size={16} />
            </ActionIcon>
          </Tooltip>
        ) : null}
        {detaching ? (
          <ConfirmDialog title={`Detach ${arm.templateName}?`} confirmLabel="Detach" mutation={detach} onConfirm={() => detach.mutate()} onClose={() => setDetaching(false)}>
            New users are no longer sent to this version.
          </ConfirmDialog>
        ) : null}
      </Table.Td>
    </Table.Tr>
  );
}

function ArmsSection({ abTest, usersByArm }: { abTest: AbTest; usersByArm: Map<string, number> }) {
  const arms = useAbTestArms(abTest.id);
  const { can } = useMemberPermissions();
  const [attaching, setAttaching] = useState(false);
  const shares = trafficShares(arms.data ?? []);
  return (
    <Stack gap="sm" mb="xl">
      <Group justify="space-between">
        <Title order={4}>Arms</Title>
        {abTest.status === 'running' && can('update_ab_tests', 'read_templates') ? (
          <Button size="xs" leftSection={<IconPlus size={14} />} onClick={() => setAttaching(true)}>
            Attach a version
          </Button>
        ) : null}
      </Group>
      {attaching ? <AttachArmModal abTest={abTest} onClose={() => setAttaching(false)} /> : null}
      {arms.error ? <ErrorNotice error={arms.error} onRetry={() => void arms.refetch()} /> : null}
      {arms.isPending ? (
        <Skeleton h={72} radius="md" />
      ) : arms.data && arms.data.length === 0 ? (
        <Card withBorder radius="lg" p="lg">
          <Text size="sm" c="dimmed" ta="center">
            No arms yet. Attach two saved versions of a template to split users between them.
          </Text>
        </Card>
      ) : arms.data ? (
        <Card withBorder radius="lg" p={0}>
          <Table verticalSpacing="xs" horizontalSpacing="md" data-testid="arms-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Version</Table.Th>
                <Table.Th>Weight</Table.Th>
                <Table.Th>Share of new users</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {arms.data.map((arm) => (
                <ArmRow key={`${arm.id}-${arm.weight}`} abTest={abTest} arm={arm} share={shares.get(arm.id) ?? 0} users={usersByArm.get(arm.id) ?? 0} />
              ))}
            </Table.Tbody>
          </Table>
        </Card>
      ) : null}
    </Stack>
  );
}

function ResultsSection({ results, winnerId, promotedId }: { results: AbTestArmResult[]; winnerId: string | null; promotedId: string | null }) {
  const format = useFormatters();
  if (results.length === 0) return null;
  return (
    <Card withBorder radius="lg" p={0}>
      <Table.ScrollContainer minWidth={900}>
        <Table verticalSpacing="sm" horizontalSpacing="md" data-testid="results-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Version</Table.Th>
              <Table.Th>Users</Table.Th>
              <Table.Th>Runs</Table.Th>
              <Table.Th>Median latency</Table.Th>
              <Table.Th>Error rate</Table.Th>
              <Table.Th>Feedback</Table.Th>
              <Table.Th>Positive rate (95% interval)</Table.Th>
              <Table.Th>Cost (credits)</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {results.map((arm) => (
              <Table.Tr key={arm.abTestTemplateId} data-testid="arm-result" data-template={arm.templateName}>
                <Table.Td>
                  <Group gap={6} wrap="nowrap">
                    <Text size="sm" fw={600} style={{ whiteSpace: 'nowrap' }}>
                      {arm.templateName}
                    </Text>
                    {arm.abTestTemplateId === winnerId ? (
                      <Badge color="teal" variant="light" leftSection={<IconTrophy size={12} />} tt="none" style={{ flexShrink: 0 }} data-testid="winner-badge">
                        winner
                      </Badge>
                    ) : null}
                    {arm.abTestTemplateId === promotedId ? (
                      <Badge color="grape" variant="light" tt="none" style={{ flexShrink: 0 }} data-testid="promoted-badge">
                        promoted
                      </Badge>
                    ) : null}
                  </Group>
                </Table.Td>
                <Table.Td data-testid="arm-users">{format.number(arm.users)}</Table.Td>
                <Table.Td data-testid="arm-runs">{format.number(arm.runs)}</Table.Td>
                <Table.Td data-testid="arm-latency">{format.durationNs(arm.medianLatencyMs === null ? null : arm.medianLatencyMs * 1e6)}</Table.Td>
                <Table.Td data-testid="arm-error-rate">{arm.errorRate === null ? '—' : `${Math.round(arm.errorRate * 100)}%`}</Table.Td>
                <Table.Td>
                  <Text size="sm" data-testid="arm-feedback">
                    {arm.positiveFeedback} up · {arm.negativeFeedback} down
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Stack gap={4}>
                    <Text size="sm" data-testid="arm-rate">
                      {formatInterval(arm.feedbackRate)}
                    </Text>
                    <IntervalBar interval={arm.feedbackRate} />
                  </Stack>
                </Table.Td>
                <Table.Td data-testid="arm-cost">{format.number(arm.cost)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Card>
  );
}

/** One A/B test: its arms and weights, the live results per arm, and stopping it (promoting a significant winner). */
export function AbTestPage() {
  const { abTestId = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const organizationId = useOrganizationId();
  const abTest = useAbTest(abTestId);
  const results = useAbTestResults(abTestId);
  const { can } = useMemberPermissions();
  const [stopping, setStopping] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const remove = useMutation({
    mutationFn: () => abTestsApi.delete(abTestId),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: abTestKeys.abTest(organizationId, abTestId) });
      await queryClient.invalidateQueries({ queryKey: abTestKeys.all(organizationId) });
      void navigate('..', { relative: 'path' });
    },
  });
  if (abTest.error) return <ErrorNotice error={abTest.error} title="The A/B test could not be loaded" onRetry={() => void abTest.refetch()} />;
  if (!abTest.data) return <Skeleton h={160} radius="md" />;
  // The results answer with the test too, and are read more often: a stop seen there shows at once.
  const current = results.data?.abTest ?? abTest.data;
  const arms = results.data?.arms ?? [];
  const winner = results.data?.winner ? (arms.find((arm) => arm.abTestTemplateId === results.data!.winner!.abTestTemplateId) ?? null) : null;
  const usersByArm = new Map(arms.map((arm) => [arm.abTestTemplateId, arm.users]));
  return (
    <>
      <PageHeader
        title={
          <Group gap="sm">
            <span data-testid="ab-test-name">{current.name}</span>
            <Badge variant="light" color={current.status === 'running' ? 'blue' : 'gray'} tt="none" data-testid="ab-test-status">
              {current.status}
            </Badge>
          </Group>
        }
        description={current.description ?? undefined}
        actions={
          <Group gap="xs">
            <Button variant="subtle" component={Link} to=".." relative="path">
              All A/B tests
            </Button>
            {/* Stopping may promote a version, which redeploys the template and migrates its agents. */}
            {current.status === 'running' && can('update_ab_tests', 'update_templates', 'update_agents') ? (
              <Button color="red" variant="light" leftSection={<IconPlayerStop size={16} />} onClick={() => setStopping(true)}>
                Stop
              </Button>
            ) : null}
            {can('delete_ab_tests') ? (
              <Tooltip label="Delete">
                <ActionIcon variant="subtle" color="red" size="lg" aria-label={`Delete ${current.name}`} onClick={() => setDeleting(true)}>
                  <IconTrash size={18} />
                </ActionIcon>
              </Tooltip>
            ) : null}
          </Group>
        }
      />
      {deleting ? (
        <ConfirmDialog title={`Delete ${current.name}?`} confirmLabel="Delete A/B test" mutation={remove} onConfirm={() => remove.mutate()} onClose={() => setDeleting(false)}>
          The test and its arms are deleted; the agents made for its users stay theirs.
        </ConfirmDialog>
      ) : null}
      {stopping ? <StopAbTestModal abTest={current} winner={winner} onClose={() => setStopping(false)} /> : null}
      <Text size="sm" c="dimmed" mb="md">
        Your app gets each end user's agent from <Code>POST /v1/ab-tests/{current.id}/agents</Code> with the user's identity; the same identity always lands on the same
        arm.
      </Text>
      <ArmsSection abTest={current} usersByArm={usersByArm} />
      <Group justify="space-between" mb="sm">
        <Title order={4}>Results</Title>
        <Text size="sm" data-testid="winner-summary">
          {winner
            ? `${winner.templateName} is significantly better (p = ${results.data!.winner!.pValue.toPrecision(2)})`
            : current.status === 'running'
              ? 'No arm is significantly better yet'
              : ''}
        </Text>
      </Group>
      {results.error ? <ErrorNotice error={results.error} title="The results could not be loaded" onRetry={() => void results.refetch()} /> : null}
      {results.isPending ? <Skeleton h={96} radius="md" /> : <ResultsSection results={arms} winnerId={winner?.abTestTemplateId ?? null} promotedId={current.winnerAbTestTemplateId} />}
    </>
  );
}
