import { randomUUID } from 'node:crypto';
import { ContentViolation, Organization, type Database } from '@engram/db';

/** Spec 000 §9: content violations are listed 20 to a page. */
export const CONTENT_VIOLATIONS_PAGE_SIZE = 20;

export type ContentViolationRecord = { violation: ContentViolation; organizationName: string };

/** Content flagged for review, newest first, with the organization it came from. */
export function createContentViolationService(deps: { db: Database }) {
  const { db } = deps;
  return {
    async list(page: number): Promise<{ violations: ContentViolationRecord[]; hasNextPage: boolean }> {
      const rows = await ContentViolation.query(db)
        .orderBy('flaggedAt', 'desc')
        .orderBy('id')
        .offset(page * CONTENT_VIOLATIONS_PAGE_SIZE)
        .limit(CONTENT_VIOLATIONS_PAGE_SIZE + 1);
      const organizations = await Organization.query(db).whereIn('id', [...new Set(rows.map((row) => row.organizationId))]);
      const names = new Map(organizations.map((organization) => [organization.id, organization.name]));
      return {
        violations: rows.slice(0, CONTENT_VIOLATIONS_PAGE_SIZE).map((violation) => ({ violation, organizationName: names.get(violation.organizationId) ?? '' })),
        hasNextPage: rows.length > CONTENT_VIOLATIONS_PAGE_SIZE,
      };
    },

    /** Records flagged content (the moderation of messages calls this). */
    async flag(organizationId: string, input: { reasons: string[]; content: string }): Promise<ContentViolation> {
      return ContentViolation.query(db).insert({ id: randomUUID(), organizationId, reasons: input.reasons, content: input.content }).returning('*');
    },
  };
}

export type ContentViolationService = ReturnType<typeof createContentViolationService>;
