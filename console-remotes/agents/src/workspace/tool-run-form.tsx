import { useMemo, useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Badge, Box, Button, Code, ErrorNotice, Group, Paper, Stack, Text, TextInput, type Tool } from '@engram/console-kit';
import { NumberInput, Select, Switch, Textarea } from '@engram/console-kit/widgets';
import { IconPlayerPlay } from '@tabler/icons-react';
import { runAgentTool, type ToolExecutionResult } from '../ade-api.js';
import { initialValues, toolArguments, toolFields, type FieldValues, type ToolField, type ToolSchema } from './tool-arguments.js';

function FieldInput({ field, value, error, onChange }: { field: ToolField; value: FieldValues[string] | undefined; error?: string; onChange: (value: FieldValues[string] | undefined) => void }) {
  const common = {
    label: field.name,
    description: field.description ?? undefined,
    withAsterisk: field.required,
    error,
    size: 'xs' as const,
    styles: { label: { fontFamily: 'var(--mantine-font-family-monospace)' } },
  };
  switch (field.kind) {
    case 'boolean':
      return (
        <Switch
          size="xs"
          label={`${field.name}${field.required ? ' *' : ''}`}
          description={field.description ?? undefined}
          checked={value === true}
          onChange={(event) => onChange(event.currentTarget.checked)}
          error={error}
        />
      );
    case 'integer':
    case 'number':
      return <NumberInput {...common} value={typeof value === 'boolean' ? '' : (value ?? '')} onChange={(next) => onChange(next)} allowDecimal={field.kind === 'number'} />;
    case 'enum':
      return <Select {...common} data={field.options} value={typeof value === 'string' ? value : null} onChange={(next) => onChange(next ?? undefined)} clearable={!field.required} placeholder="Choose a value" />;
    case 'json':
      return (
        <Textarea
          {...common}
          description={[field.description, `JSON${field.jsonType ? ` ${field.jsonType}` : ''}`].filter(Boolean).join(' · ')}
          value={typeof value === 'string' ? value : ''}
          onChange={(event) => onChange(event.currentTarget.value)}
          autosize
          minRows={2}
          maxRows={8}
          ff="monospace"
          placeholder={field.jsonType === 'array' ? '["…"]' : field.jsonType === 'object' ? '{"key": "value"}' : 'a JSON value'}
        />
      );
    case 'string':
      return <TextInput {...common} value={typeof value === 'string' ? value : ''} onChange={(event) => onChange(event.currentTarget.value)} />;
  }
}

function Output({ label, text }: { label: string; text: string }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" fw={600}>
        {label}
      </Text>
      <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', maxHeight: 240, overflow: 'auto' }}>
        {text}
      </Code>
    </Stack>
  );
}

function ResultView({ result }: { result: ToolExecutionResult }) {
  const returned = typeof result.func_return === 'string' ? result.func_return : JSON.stringify(result.func_return, null, 2);
  const stdout = (result.stdout ?? []).join('');
  const stderr = (result.stderr ?? []).join('');
  return (
    <Paper withBorder radius="md" p="xs" data-testid="tool-run-result" data-status={result.status}>
      <Stack gap="xs">
        <Badge size="sm" variant="light" color={result.status === 'success' ? 'teal' : 'red'} w="fit-content">
          {result.status === 'success' ? 'Succeeded' : 'Failed'}
        </Badge>
        <Output label={result.status === 'success' ? 'Returned' : 'Error'} text={returned ?? 'None'} />
        {stdout ? <Output label="stdout" text={stdout} /> : null}
        {stderr ? <Output label="stderr" text={stderr} /> : null}
      </Stack>
    </Paper>
  );
}

/**
 * A form made from a tool's parameters: runs `run` with the arguments typed into it, and shows what the tool
 * returned and printed. `label` names the form (for screen readers and tests).
 */
export function ToolArgumentsForm({ schema, label, run, disabled = false }: { schema: ToolSchema; label: string; run: (args: Record<string, unknown>) => Promise<ToolExecutionResult>; disabled?: boolean }) {
  const fields = useMemo(() => toolFields(schema), [schema]);
  const [values, setValues] = useState<FieldValues>(() => initialValues(schema, fields));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const execution = useMutation({ mutationFn: run });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const made = toolArguments(fields, values);
    setErrors(made.errors);
    if (Object.keys(made.errors).length === 0) execution.mutate(made.args);
  };
  const setValue = (name: string, value: FieldValues[string] | undefined) =>
    setValues((current) => {
      const next = { ...current };
      if (value === undefined) delete next[name];
      else next[name] = value;
      return next;
    });

  return (
    <Box component="form" onSubmit={submit} noValidate aria-label={label}>
      <Stack gap="xs">
        {fields.length === 0 ? (
          <Text size="xs" c="dimmed">
            This tool takes no arguments.
          </Text>
        ) : (
          fields.map((field) => <FieldInput key={field.name} field={field} value={values[field.name]} error={errors[field.name]} onChange={(value) => setValue(field.name, value)} />)
        )}
        <Group justify="flex-end">
          <Button type="submit" size="xs" leftSection={<IconPlayerPlay size={14} />} loading={execution.isPending} disabled={disabled}>
            Run
          </Button>
        </Group>
        {execution.error ? <ErrorNotice error={execution.error} title="The tool did not run" /> : null}
        {execution.data && !execution.isPending ? <ResultView result={execution.data} /> : null}
      </Stack>
    </Box>
  );
}

/** Runs one of the agent's tools as the agent would, with arguments typed into a form made from its parameters. */
export function ToolRunForm({ agentId, tool }: { agentId: string; tool: Tool }) {
  return <ToolArgumentsForm schema={tool.json_schema as ToolSchema} label={`Run ${tool.name}`} run={(args) => runAgentTool(agentId, tool.name, args)} />;
}
