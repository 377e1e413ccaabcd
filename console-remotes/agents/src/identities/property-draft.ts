/*
 * An identity's properties as the form edits them (every value as text) and as the API takes them (each value
 * of its declared type). Pure, so it is tested without a browser.
 */
import type { IdentityProperty, PropertyType } from './identity-types.js';

export type PropertyDraft = { key: string; type: PropertyType; value: string };

export function propertyDrafts(properties: IdentityProperty[]): PropertyDraft[] {
  return properties.map((property) => ({
    key: property.key,
    type: property.type,
    value: property.type === 'json' ? JSON.stringify(property.value, null, 2) : String(property.value),
  }));
}

function typedProperty(key: string, type: PropertyType, text: string): IdentityProperty | string {
  switch (type) {
    case 'string':
      return { key, type, value: text };
    case 'number': {
      const value = Number(text);
      return text.trim() !== '' && Number.isFinite(value) ? { key, type, value } : 'Enter a number';
    }
    case 'boolean':
      return text === 'true' || text === 'false' ? { key, type, value: text === 'true' } : 'Choose true or false';
    case 'json': {
      try {
        const value: unknown = JSON.parse(text);
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { key, type, value: value as Record<string, unknown> };
      } catch {
        // Reported below, like any value that is not an object.
      }
      return 'Enter a JSON object, like {"plan": "pro"}';
    }
  }
}

/** The properties the rows make, or a message per row (by index) that stops them; a row left wholly empty is ignored. */
export function identityProperties(drafts: PropertyDraft[]): { properties: IdentityProperty[]; errors: Record<number, string> } {
  const properties: IdentityProperty[] = [];
  const errors: Record<number, string> = {};
  const seen = new Set<string>();
  drafts.forEach((draft, index) => {
    const key = draft.key.trim();
    if (key === '' && draft.value === '') return;
    if (key === '') errors[index] = 'Name the property';
    else if (seen.has(key)) errors[index] = `"${key}" is already set above`;
    else {
      const made = typedProperty(key, draft.type, draft.value);
      if (typeof made === 'string') errors[index] = made;
      else properties.push(made);
    }
    seen.add(key);
  });
  return { properties, errors };
}
