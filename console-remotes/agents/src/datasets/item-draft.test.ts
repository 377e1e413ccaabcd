import { describe, expect, it } from 'vitest';
import type { DatasetItem } from './dataset-types.js';
import { draftOf, EMPTY_ITEM_DRAFT, fieldsOf } from './item-draft.js';

describe('item drafts', () => {
  it('sends blank answers and notes as none and leaves an automatic scorer to the API', () => {
    expect(fieldsOf({ ...EMPTY_ITEM_DRAFT, content: 'What is 2+2?', expectedAnswer: '4', graderNote: '  ' })).toEqual({
      createMessage: { role: 'user', content: 'What is 2+2?' },
      expectedAnswer: '4',
      graderNote: null,
      scorer: null,
    });
    expect(fieldsOf({ role: 'system', content: 'Be terse', expectedAnswer: '', graderNote: 'Is it terse?', scorer: 'llm' })).toEqual({
      createMessage: { role: 'system', content: 'Be terse' },
      expectedAnswer: null,
      graderNote: 'Is it terse?',
      scorer: 'llm',
    });
  });

  it('edits an item as it is stored, and sends it back unchanged', () => {
    const item: DatasetItem = {
      id: 'dataset_item-1',
      datasetId: 'dataset-1',
      createMessage: { role: 'user', content: 'Name a colour' },
      expectedAnswer: 'blue',
      scorer: 'contains',
      graderNote: null,
      createdAt: '2026-11-27T00:00:00.000Z',
      updatedAt: '2026-11-27T00:00:00.000Z',
    };
    const draft = draftOf(item);
    expect(draft).toEqual({ role: 'user', content: 'Name a colour', expectedAnswer: 'blue', graderNote: '', scorer: 'contains' });
    expect(fieldsOf(draft)).toEqual({ createMessage: item.createMessage, expectedAnswer: 'blue', graderNote: null, scorer: 'contains' });
  });
});
