import { useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Badge,
  Button,
  Card,
  Code,
  ErrorNotice,
  Group,
  Loader,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  Title,
  useDebouncedValue,
  useV1,
} from '@engram/console-kit';
import { NumberInput, Switch, TagsInput, Textarea } from '@engram/console-kit/widgets';
import { IconDeviceFloppy, IconInfoCircle } from '@tabler/icons-react';
import { usePermissions } from '../access/use-permissions.js';
import { ToolArgumentsForm } from '../workspace/tool-run-form.js';
import type { ToolSchema } from '../workspace/tool-arguments.js';
import { formatRequirements, parseRequirements, parseSchemaText, schemaText, STARTERS, TYPESCRIPT_STARTER_SCHEMA } from './tool-draft.js';
import { toolKeys } from './tool-keys.js';
import { createTool, generatePythonSchema, runToolSource, updateTool, type FullTool, type ToolDraft, type ToolJsonSchema, type ToolLanguage } from './tools-api.js';

/** The API's default `return_char_limit`. */
const DEFAULT_RETURN_LIMIT = 50_000;

const LANGUAGE_LABELS: Record<ToolLanguage, string> = { python: 'Python', typescript: 'TypeScript' };

const languageOf = (tool: FullTool | null): ToolLanguage => (tool?.source_type === 'typescript' ? 'typescript' : 'python');

const monospace = { input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13, tabSize: 4 } };

/**
 * The source textarea indents with Tab, as code editors do. Escape first lets the next Tab move focus on,
 * so the field never traps the keyboard.
 */
function useIndentOnTab(value: string, onChange: (value: string) => void, indent: string) {
  const escaped = useRef(false);
  return (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Escape') {
      escaped.current = true;
      return;
    }
    if (event.key !== 'Tab' || event.shiftKey || escaped.current) {
      escaped.current = false;
      return;
    }
    event.preventDefault();
    const field = event.currentTarget;
    const { selectionStart, selectionEnd } = field;
    onChange(`${value.slice(0, selectionStart)}${indent}${value.slice(selectionEnd)}`);
    requestAnimationFrame(() => field.setSelectionRange(selectionStart + indent.length, selectionStart + indent.length));
  };
}

function SchemaView({ schema }: { schema: ToolJsonSchema }) {
  return (
    <Code block data-testid="tool-schema" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', maxHeight: 360, overflow: 'auto' }}>
      {schemaText(schema)}
    </Code>
  );
}

/**
 * What the editor shows as the tool's schema: for Python, the one the API derives from the source as it is
 * typed; for TypeScript, the one typed beside it.
 */
function usePythonSchema(source: string, enabled: boolean) {
  const v1 = useV1();
  const [settled] = useDebouncedValue(source, 400);
  const derived = useQuery({
    queryKey: toolKeys.pythonSchema(v1, settled),
    queryFn: () => generatePythonSchema(settled),
    enabled: enabled && settled.trim() !== '',
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    placeholderData: keepPreviousData,
  });
  return { ...derived, catchingUp: source !== settled || derived.isFetching };
}

export type ToolEditorProps = {
  /** The tool to edit; null for a new one. */
  tool: FullTool | null;
  /** The save button's label. */
  saveLabel: string;
  /** After every save, with the tool as saved; a failure here shows like a failed save. */
  onSaved?: (tool: FullTool) => Promise<unknown> | void;
  /** Beside the save button (delete, close…). */
  actions?: ReactNode;
  /** Where the name and save row sticks while the editor scrolls: below whatever header covers the top. */
  stickyTop: string;
};

/**
 * Writes a custom tool in Python or TypeScript: the source, the JSON schema the model sees (derived from a
 * Python function as it is typed, written by hand for TypeScript), a test run of the unsaved source with
 * arguments from a form made from that schema, and the tool's settings.
 */
export function ToolEditor({ tool, saveLabel, onSaved, actions, stickyTop }: ToolEditorProps) {
  const v1 = useV1();
  const queryClient = useQueryClient();
  const { can, known } = usePermissions();
  // After the first save the editor edits what it saved, so saving again (or retrying `onSaved`) never creates twice.
  const [saved, setSaved] = useState<FullTool | null>(tool);
  const [language, setLanguage] = useState<ToolLanguage>(languageOf(tool));
  const [source, setSource] = useState(tool?.source_code ?? STARTERS.python);
  const [typescriptSchema, setTypescriptSchema] = useState(() => schemaText(tool?.source_type === 'typescript' ? tool.json_schema : TYPESCRIPT_STARTER_SCHEMA));
  const [description, setDescription] = useState(tool?.description ?? '');
  const [tags, setTags] = useState<string[]>(tool?.tags ?? []);
  const [requirements, setRequirements] = useState(() => formatRequirements((language === 'python' ? tool?.pip_requirements : tool?.npm_requirements) ?? null, language));
  const [returnLimit, setReturnLimit] = useState<number | string>(tool?.return_char_limit ?? DEFAULT_RETURN_LIMIT);
  const [requiresApproval, setRequiresApproval] = useState(tool?.default_requires_approval ?? false);

  const editable = saved ? can('updateTool') : can('createTool');
  const canTry = can('tryToolSource');
  const python = usePythonSchema(source, language === 'python' && canTry);
  const typed = parseSchemaText(typescriptSchema);
  const unchangedSource = saved !== null && source === saved.source_code && language === languageOf(saved);
  const schema: ToolJsonSchema | null =
    language === 'typescript' ? ('schema' in typed ? typed.schema : null) : (python.data ?? (unchangedSource && saved ? saved.json_schema : null));
  const onSourceKey = useIndentOnTab(source, setSource, language === 'python' ? '    ' : '  ');

  const switchLanguage = (next: ToolLanguage) => {
    // The starter of one language becomes the other's; anything the user wrote stays.
    if (source.trim() === '' || source === STARTERS[language]) setSource(STARTERS[next]);
    setRequirements('');
    setLanguage(next);
  };

  const draft = (): ToolDraft => {
    const packages = parseRequirements(requirements, language);
    const trimmed = description.trim();
    const describe = saved ? trimmed !== (saved.description ?? '') : trimmed !== '';
    return {
      source_type: language,
      source_code: source,
      ...(language === 'typescript' && schema ? { json_schema: schema } : {}),
      // Left out, a Python tool takes its docstring's description and a TypeScript tool its schema's.
      ...(describe ? { description: trimmed || null } : {}),
      tags,
      pip_requirements: language === 'python' ? packages : null,
      npm_requirements: language === 'typescript' ? packages : null,
      return_char_limit: typeof returnLimit === 'number' ? returnLimit : DEFAULT_RETURN_LIMIT,
      default_requires_approval: requiresApproval,
    };
  };

  const save = useMutation({
    mutationFn: async () => {
      const result = saved ? await updateTool(saved.id, draft()) : await createTool(draft());
      setSaved(result);
      queryClient.setQueryData(toolKeys.tool(v1, result.id), result);
      await queryClient.invalidateQueries({ queryKey: toolKeys.all(v1) });
      await onSaved?.(result);
      return result;
    },
  });
  const typescriptError = language === 'typescript' && 'error' in typed ? typed.error : null;

  return (
    <Stack gap="md" data-testid="tool-editor">
      <Group justify="space-between" align="center" wrap="wrap" gap="sm" py="xs" style={{ position: 'sticky', top: stickyTop, zIndex: 3, background: 'var(--mantine-color-body)' }}>
        <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
          <Title order={4} ff="monospace" data-testid="tool-editor-name" lineClamp={1}>
            {schema?.name ?? saved?.name ?? 'new tool'}
          </Title>
          <Badge variant="light" tt="none">
            {LANGUAGE_LABELS[language]}
          </Badge>
        </Group>
        <Group gap="xs">
          {actions}
          {editable ? (
            <Button leftSection={<IconDeviceFloppy size={16} />} loading={save.isPending} disabled={typescriptError !== null || source.trim() === ''} onClick={() => save.mutate()}>
              {saveLabel}
            </Button>
          ) : null}
        </Group>
      </Group>
      {known && !editable ? (
        <Alert variant="light" color="gray" icon={<IconInfoCircle size={18} />}>
          Your role can read this tool but not {saved ? 'change it' : 'create tools'}.
        </Alert>
      ) : null}
      {save.error ? <ErrorNotice error={save.error} title="The tool was not saved" /> : null}
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md" verticalSpacing="md">
        <Stack gap="sm">
          {saved === null ? (
            <SegmentedControl
              aria-label="Language"
              value={language}
              onChange={(value) => switchLanguage(value as ToolLanguage)}
              data={[
                { value: 'python', label: 'Python' },
                { value: 'typescript', label: 'TypeScript' },
              ]}
              disabled={!editable}
            />
          ) : null}
          <Textarea
            label="Source"
            description={
              language === 'python'
                ? 'One function; its signature and docstring make the schema. Tab indents; press Esc, then Tab, to move on.'
                : 'An exported function taking the schema’s parameters. Tab indents; press Esc, then Tab, to move on.'
            }
            value={source}
            onChange={(event) => setSource(event.currentTarget.value)}
            onKeyDown={onSourceKey}
            autosize
            minRows={14}
            maxRows={28}
            spellCheck={false}
            readOnly={!editable}
            styles={monospace}
          />
          <Textarea
            label="Description"
            description={language === 'python' ? 'What the model reads about the tool. Empty: the docstring’s.' : 'What the model reads about the tool. Empty: the schema’s.'}
            value={description}
            onChange={(event) => setDescription(event.currentTarget.value)}
            autosize
            minRows={1}
            maxRows={4}
            readOnly={!editable}
          />
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <TagsInput label="Tags" value={tags} onChange={setTags} placeholder="Add a tag" readOnly={!editable} clearable />
            <NumberInput
              label="Return limit (characters)"
              value={returnLimit}
              onChange={setReturnLimit}
              min={1}
              max={1_000_000}
              allowDecimal={false}
              thousandSeparator=","
              readOnly={!editable}
            />
          </SimpleGrid>
          <Textarea
            label={language === 'python' ? 'pip requirements' : 'npm requirements'}
            description={language === 'python' ? 'One a line, like requests==2.32.3' : 'One a line, like lodash@4.17.21'}
            value={requirements}
            onChange={(event) => setRequirements(event.currentTarget.value)}
            autosize
            minRows={1}
            maxRows={6}
            spellCheck={false}
            readOnly={!editable}
            styles={monospace}
          />
          <Switch
            label="Requires approval by default"
            description="Agents that get this tool ask a human before each call."
            checked={requiresApproval}
            onChange={(event) => setRequiresApproval(event.currentTarget.checked)}
            disabled={!editable}
          />
        </Stack>
        <Stack gap="md">
          <Card withBorder radius="md" p="sm">
            <Stack gap="xs">
              <Group justify="space-between">
                <Text fw={600} size="sm">
                  JSON schema
                </Text>
                {language === 'python' && python.catchingUp ? <Loader size="xs" aria-label="Deriving the schema" /> : null}
              </Group>
              {language === 'typescript' ? (
                <Textarea
                  aria-label="JSON schema"
                  description="TypeScript tools bring their schema: its name is the function's, its parameters the function's arguments."
                  value={typescriptSchema}
                  onChange={(event) => setTypescriptSchema(event.currentTarget.value)}
                  error={typescriptError}
                  autosize
                  minRows={8}
                  maxRows={20}
                  spellCheck={false}
                  readOnly={!editable}
                  styles={monospace}
                />
              ) : python.error && !python.catchingUp ? (
                <ErrorNotice error={python.error} title="No schema can be derived from this source" />
              ) : schema ? (
                <SchemaView schema={schema} />
              ) : (
                <Text size="sm" c="dimmed">
                  {canTry ? 'The schema appears here as you write the function.' : 'The schema is derived when the tool is saved.'}
                </Text>
              )}
            </Stack>
          </Card>
          <Card withBorder radius="md" p="sm">
            <Stack gap="xs">
              <Text fw={600} size="sm">
                Test run
              </Text>
              <Text size="xs" c="dimmed">
                Runs the source as written, unsaved, in the organization&apos;s sandbox.
              </Text>
              {known && !canTry ? (
                <Text size="sm" c="dimmed">
                  Your role cannot run tool source.
                </Text>
              ) : schema && canTry ? (
                <ToolArgumentsForm
                  // A new parameter list is a new form: old values would not fit it.
                  key={JSON.stringify(schema.parameters ?? {})}
                  schema={schema as ToolSchema}
                  label={`Test ${schema.name}`}
                  run={(args) =>
                    runToolSource({
                      source_code: source,
                      source_type: language,
                      args,
                      name: schema.name,
                      ...(language === 'typescript' ? { json_schema: schema, npm_requirements: parseRequirements(requirements, language) } : { pip_requirements: parseRequirements(requirements, language) }),
                    })
                  }
                />
              ) : (
                <Text size="sm" c="dimmed">
                  A test run needs the schema first.
                </Text>
              )}
            </Stack>
          </Card>
        </Stack>
      </SimpleGrid>
    </Stack>
  );
}
