import type { ChangeEvent } from 'react';

/**
 * Ties inputs to the text fields of one form state: `field('email')` is the value, change handler and
 * validation error an input of that field takes, so each input spreads it instead of repeating them.
 */
export function bindFields<Values extends Record<string, string>>(values: Values, setValues: (values: Values) => void, errors: Record<string, string>) {
  return (name: keyof Values & string) => ({
    value: values[name],
    onChange: (event: ChangeEvent<HTMLInputElement>) => setValues({ ...values, [name]: event.currentTarget.value }),
    error: errors[name],
  });
}
