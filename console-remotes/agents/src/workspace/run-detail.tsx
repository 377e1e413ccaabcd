import { useState, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  ActionIcon,
  Anchor,
  Badge,
  Button,
  Code,
  CopyButton,
  ErrorNotice,
  Group,
  Link,
  Paper,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  Tooltip,
  UnstyledButton,
  useFormatters,
  useProject,
  useV1,
  type Run,
  type Step,
} from '@engram/console-kit';
import { Collapse } from '@engram/console-kit/widgets';
import { IconArrowLeft, IconCheck, IconChevronDown, IconChevronRight, IconCopy, IconExternalLink } from '@tabler/icons-react';
import { temporalWorkflowUrl } from '../ade-api.js';
import { segment, v1Json } from '../v1-request.js';
import { useConsoleSettings, useRun, useRunSteps, useRunUsage, useStepDetail } from '../queries.js';

export const RUN_STATUS_COLORS: Record<string, string> = { completed: 'teal', running: 'blue', created: 'gray', failed: 'red', cancelled: 'yellow' };

function Fact({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <Stack gap={0} style={{ minWidth: 0 }}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" ff="monospace" fz="xs" style={{ overflowWrap: 'anywhere' }} data-testid={testId}>
        {children}
      </Text>
    </Stack>
  );
}

/** Raw JSON, wrapped to the panel's width (never a sideways scroll), with a copy button. */
function JsonBlock({ label, value, testId }: { label: string; value: unknown; testId: string }) {
  const text = JSON.stringify(value, null, 2);
  return (
    <Stack gap={4}>
      <Group justify="space-between" wrap="nowrap">
        <Text size="xs" fw={600}>
          {label}
        </Text>
        <CopyButton value={text}>
          {({ copied, copy }) => (
            <Tooltip label={copied ? 'Copied' : `Copy the ${label.toLowerCase()}`}>
              <ActionIcon size="sm" variant="subtle" color={copied ? 'teal' : 'gray'} onClick={copy} aria-label={`Copy the ${label.toLowerCase()}`}>
                {copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
              </ActionIcon>
            </Tooltip>
          )}
        </CopyButton>
      </Group>
      <Code block fz="xs" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', maxHeight: 320, overflowY: 'auto' }} data-testid={testId}>
        {text}
      </Code>
    </Stack>
  );
}

/** What a step took (timings) and the provider call it made (the body sent, and the answer as the worker read it). */
function StepBody({ step }: { step: Step }) {
  const format = useFormatters();
  const { metrics, trace } = useStepDetail(step.id, true);
  return (
    <Stack gap="xs" mt="xs">
      {metrics.error ? <ErrorNotice error={metrics.error} title="The step's timings could not be read" /> : null}
      <SimpleGrid cols={3} spacing="xs">
        <Fact label="Model call" testId="step-llm-time">
          {metrics.data ? format.durationNs(metrics.data.llm_request_ns) : '…'}
        </Fact>
        <Fact label="Tools">{metrics.data ? format.durationNs(metrics.data.tool_execution_ns) : '…'}</Fact>
        <Fact label="Whole step">{metrics.data ? format.durationNs(metrics.data.step_ns) : '…'}</Fact>
      </SimpleGrid>
      {step.error_type ? (
        <Text size="xs" c="red">
          {step.error_type}
          {typeof step.error_data?.message === 'string' ? `: ${step.error_data.message}` : ''}
        </Text>
      ) : null}
      {trace.isPending ? <Skeleton h={80} /> : null}
      {trace.error ? <ErrorNotice error={trace.error} title="The provider call could not be read" /> : null}
      {trace.data === null ? (
        <Text size="xs" c="dimmed">
          No provider call was recorded for this step (it ended before the model answered).
        </Text>
      ) : null}
      {trace.data ? (
        <>
          <JsonBlock label="Request" value={trace.data.request_json} testId="step-request" />
          <JsonBlock label="Response" value={trace.data.response_json} testId="step-response" />
        </>
      ) : null}
    </Stack>
  );
}

function StepCard({ step, index }: { step: Step; index: number }) {
  const format = useFormatters();
  const [open, setOpen] = useState(false);
  return (
    <Paper withBorder radius="md" px="sm" py={6} data-testid="run-step">
      <UnstyledButton onClick={() => setOpen((value) => !value)} w="100%" aria-expanded={open} aria-label={`Step ${index + 1}`}>
        <Group gap="xs" wrap="nowrap">
          {open ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
          <Text size="sm" fw={600}>
            Step {index + 1}
          </Text>
          <Text size="xs" c="dimmed" ff="monospace" truncate style={{ flex: 1, minWidth: 0 }}>
            {step.model_handle ?? step.model ?? ''}
          </Text>
          <Text size="xs" ff="monospace" c="dimmed" style={{ whiteSpace: 'nowrap' }} data-testid="step-tokens">
            {format.number(step.prompt_tokens)} → {format.number(step.completion_tokens)} tokens
          </Text>
        </Group>
      </UnstyledButton>
      <Group gap={6} pl={22} mt={2}>
        {step.stop_reason ? (
          <Badge size="xs" variant="light" tt="none" color="gray" data-testid="step-stop-reason">
            {step.stop_reason}
          </Badge>
        ) : null}
        {step.status && step.status !== 'success' ? (
          <Badge size="xs" variant="light" tt="none" color={step.status === 'failed' ? 'red' : 'gray'}>
            {step.status}
          </Badge>
        ) : null}
      </Group>
      <Collapse expanded={open}>{open ? <StepBody step={step} /> : null}</Collapse>
    </Paper>
  );
}

function RunSummary({ run }: { run: Run }) {
  const format = useFormatters();
  const finished = run.status !== 'running' && run.status !== 'created';
  const usage = useRunUsage(run.id, finished);
  return (
    <SimpleGrid cols={{ base: 2, xs: 3 }} spacing="xs" verticalSpacing="xs" data-testid="run-summary">
      <Fact label="Started">{format.dateTime(run.created_at)}</Fact>
      <Fact label="Duration">{format.durationNs(run.total_duration_ns)}</Fact>
      <Fact label="First token">{format.durationNs(run.ttft_ns)}</Fact>
      <Fact label="Stop reason" testId="run-stop-reason">
        {run.stop_reason ?? '—'}
      </Fact>
      <Fact label="Steps">{usage.data ? format.number(usage.data.step_count) : '—'}</Fact>
      <Fact label="Tokens (in → out)" testId="run-tokens">
        {usage.data ? `${format.number(usage.data.prompt_tokens)} → ${format.number(usage.data.completion_tokens)}` : '—'}
      </Fact>
    </SimpleGrid>
  );
}

/**
 * The run's trace in the Observability screens: its first span names the trace (`GET /v1/runs/{id}/trace`); none
 * while tracing is off or the spans passed their retention.
 */
function useRunTraceId(runId: string, finished: boolean) {
  const v1 = useV1();
  return useQuery({
    queryKey: ['v1', v1.organizationId, 'run-trace-id', runId],
    queryFn: async () => (await v1Json<Array<{ trace_id: string }>>(`/runs/${segment(runId)}/trace`, { query: { limit: 1 } }))[0]?.trace_id ?? null,
    // Spans are written in batches as the run goes: look again once it ended.
    enabled: finished,
  });
}

/** One run: what it took, links to its trace and its workflow in the Temporal UI, and each step with its raw provider call. */
export function RunDetail({ runId, onBack }: { runId: string; onBack: () => void }) {
  const run = useRun(runId);
  const steps = useRunSteps(runId, run.data?.status);
  const settings = useConsoleSettings();
  const project = useProject();
  const traceId = useRunTraceId(runId, run.data !== undefined && run.data.status !== 'running' && run.data.status !== 'created');
  const temporalUi = settings.data?.temporalUi;
  return (
    <Stack gap="sm" data-testid="run-detail">
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Button size="xs" variant="subtle" leftSection={<IconArrowLeft size={14} />} onClick={onBack} px={6}>
          All runs
        </Button>
        <Group gap="sm" wrap="nowrap">
          {traceId.data ? (
            <Anchor component={Link} to={`/projects/${project.slug}/observability/traces/${traceId.data}`} size="xs" data-testid="run-trace-link">
              Trace
            </Anchor>
          ) : null}
          {temporalUi ? (
            <Anchor href={temporalWorkflowUrl(temporalUi, runId)} target="_blank" rel="noopener noreferrer" size="xs" data-testid="temporal-link">
              <Group gap={4} wrap="nowrap">
                Workflow in Temporal
                <IconExternalLink size={13} />
              </Group>
            </Anchor>
          ) : null}
        </Group>
      </Group>
      <Group gap="xs" wrap="nowrap">
        {run.data ? (
          <Badge
            size="sm"
            variant="dot"
            tt="none"
            color={RUN_STATUS_COLORS[run.data.status] ?? 'gray'}
            style={{ flexShrink: 0 }}
            styles={{ label: { overflow: 'visible' } }}
            data-testid="run-status"
          >
            {run.data.status}
          </Badge>
        ) : null}
        <Text size="xs" ff="monospace" c="dimmed" truncate>
          {runId}
        </Text>
        <CopyButton value={runId}>
          {({ copied, copy }) => (
            <ActionIcon size="xs" variant="subtle" color={copied ? 'teal' : 'gray'} onClick={copy} aria-label="Copy run id">
              {copied ? <IconCheck size={12} /> : <IconCopy size={12} />}
            </ActionIcon>
          )}
        </CopyButton>
      </Group>
      {run.error ? <ErrorNotice error={run.error} title="This run could not be read" onRetry={() => void run.refetch()} /> : null}
      {run.data ? <RunSummary run={run.data} /> : run.isPending ? <Skeleton h={60} /> : null}
      <Text size="sm" fw={600}>
        Steps
      </Text>
      {steps.error ? <ErrorNotice error={steps.error} onRetry={() => void steps.refetch()} /> : null}
      {steps.isPending ? <Skeleton h={80} /> : null}
      {steps.data?.length === 0 ? (
        <Text size="sm" c="dimmed">
          No step was stored: the run ended before its first step finished.
        </Text>
      ) : null}
      {steps.data?.map((step, index) => <StepCard key={step.id} step={step} index={index} />)}
    </Stack>
  );
}
