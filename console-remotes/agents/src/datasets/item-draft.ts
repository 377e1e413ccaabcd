import type { DatasetItem, DatasetItemFields, DatasetScorer } from './dataset-types.js';

/** The item form's fields as typed: empty text for what is left out; `auto` lets the API pick the scorer. */
export type ItemDraft = {
  role: DatasetItem['createMessage']['role'];
  content: string;
  expectedAnswer: string;
  graderNote: string;
  scorer: DatasetScorer | 'auto';
};

export const EMPTY_ITEM_DRAFT: ItemDraft = { role: 'user', content: '', expectedAnswer: '', graderNote: '', scorer: 'auto' };

export function draftOf(item: DatasetItem): ItemDraft {
  return {
    role: item.createMessage.role,
    content: item.createMessage.content,
    expectedAnswer: item.expectedAnswer ?? '',
    graderNote: item.graderNote ?? '',
    scorer: item.scorer ?? 'auto',
  };
}

/**
 * The fields sent for a draft: blank answers and notes are none, and `auto` leaves the scorer to the API (exact
 * with an expected answer, the grader with only a note). The API says what is wrong with a combination.
 */
export function fieldsOf(draft: ItemDraft): DatasetItemFields {
  const expectedAnswer = draft.expectedAnswer.trim() ? draft.expectedAnswer : null;
  const graderNote = draft.graderNote.trim() ? draft.graderNote : null;
  return { createMessage: { role: draft.role, content: draft.content }, expectedAnswer, graderNote, scorer: draft.scorer === 'auto' ? null : draft.scorer };
}
