import { Alert, Stack, Text, TextInput } from '@engram/console-kit';
import type { MemoryVariable } from './template-types.js';

/** The variables of a version that have no default and no value yet: the version cannot become an agent until they do. */
export function unfilledVariables(variables: MemoryVariable[], values: Readonly<Record<string, string>>): string[] {
  return variables.filter((variable) => variable.defaultValue === null && !values[variable.key]).map((variable) => variable.key);
}

/** The values given, without the empty ones (an empty field means "use the default"). */
export function givenValues(values: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== ''));
}

/**
 * One field per memory variable of a version: those without a default must be filled before the version can become
 * an agent (deploy, migration, dataset run, A/B arm), and the warning above the fields says which are still missing.
 * `needed` narrows the required ones (a migration needs only what some agent has no value for).
 */
export function VariableFields({
  variables,
  values,
  onChange,
  needed,
  what,
}: {
  variables: MemoryVariable[];
  values: Record<string, string>;
  onChange: (values: Record<string, string>) => void;
  needed?: ReadonlyMap<string, string>;
  /** What the values are for, in the warning: "the agents", "every item's agent". */
  what: string;
}) {
  if (variables.length === 0) return null;
  const required = (variable: MemoryVariable) => (needed ? needed.has(variable.key) : variable.defaultValue === null);
  const missing = variables.filter((variable) => required(variable) && !values[variable.key]).map((variable) => variable.key);
  return (
    <Stack gap="xs" data-testid="variable-fields">
      {missing.length > 0 ? (
        <Alert color="yellow" title="This version cannot run without these values" data-testid="missing-variables">
          <Text size="sm">
            {missing.map((key) => `{{${key}}}`).join(', ')} {missing.length === 1 ? 'has' : 'have'} no default: give {missing.length === 1 ? 'it a value' : 'each a value'} for {what}.
          </Text>
        </Alert>
      ) : null}
      {variables.map((variable) => (
        <TextInput
          key={variable.key}
          label={`{{${variable.key}}}`}
          placeholder={variable.defaultValue ?? 'required'}
          description={
            needed?.get(variable.key) ?? (variable.defaultValue === null ? 'No default: a value is needed' : `Default: ${variable.defaultValue}`)
          }
          required={required(variable)}
          value={values[variable.key] ?? ''}
          onChange={(event) => onChange({ ...values, [variable.key]: event.currentTarget.value })}
          aria-label={`Memory variable ${variable.key}`}
        />
      ))}
    </Stack>
  );
}
