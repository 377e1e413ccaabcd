/* Wire shapes of identities that the form's pure helpers share with the API calls. */

export type IdentityType = 'org' | 'user' | 'other';

/** A property's value is of its declared type; `json` holds an object. */
export type IdentityProperty =
  | { key: string; type: 'string'; value: string }
  | { key: string; type: 'number'; value: number }
  | { key: string; type: 'boolean'; value: boolean }
  | { key: string; type: 'json'; value: Record<string, unknown> };

export type PropertyType = IdentityProperty['type'];
