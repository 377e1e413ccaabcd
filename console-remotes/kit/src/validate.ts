import { useCallback, useState, type FormEvent } from 'react';
import type { formSchemas } from './schemas.js';

export type FormName = keyof typeof formSchemas;

/**
 * Validates a form with its zod schema; field → first message, empty when valid. The schemas (and
 * zod) load on first use, so they stay out of the console's initial JavaScript.
 */
export async function validateForm(form: FormName, values: unknown): Promise<Record<string, string>> {
  const { formSchemas: schemas, fieldErrors } = await import('./schemas.js');
  return fieldErrors(schemas[form], values);
}

/** A form's submit handler: validates `values` with the form's schema, then calls `onValid`. */
export function useValidatedSubmit(form: FormName, values: unknown, onValid: () => void) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const onSubmit = useCallback(
    (event: FormEvent) => {
      event.preventDefault();
      void validateForm(form, values).then((found) => {
        setErrors(found);
        if (Object.keys(found).length === 0) onValid();
      });
    },
    [form, values, onValid],
  );
  return { errors, setErrors, onSubmit };
}
