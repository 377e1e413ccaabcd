import { createHash, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { VerificationCode, type Database, type VerificationPurpose } from '@engram/db';

/** How long a code works, and how many wrong guesses burn it. */
const CODE_TTL_MS: Record<VerificationPurpose, number> = {
  password_reset: 15 * 60_000,
  email_verification: 24 * 60 * 60_000,
  phone_verification: 10 * 60_000,
};
const MAX_FAILED_ATTEMPTS = 5;

export type CodeCheck = 'valid' | 'invalid' | 'expired';

function hashCode(code: string): Buffer {
  return createHash('sha256').update(code).digest();
}

export function createVerificationCodes(deps: { db: Database }) {
  return {
    /** A fresh six-digit code for the purpose (earlier unused ones stop working), and when it was issued. */
    async issue(input: { userId: string; purpose: VerificationPurpose; target: string }, db: Database = deps.db) {
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      const now = new Date();
      await VerificationCode.query(db)
        .patch({ consumedAt: now })
        .where({ userId: input.userId, purpose: input.purpose })
        .whereNull('consumedAt');
      const issued = await VerificationCode.query(db)
        .insert({
          id: randomUUID(),
          userId: input.userId,
          purpose: input.purpose,
          target: input.target,
          codeHash: hashCode(code).toString('hex'),
          expiresAt: new Date(now.getTime() + CODE_TTL_MS[input.purpose]),
        })
        .returning('*');
      return { code, issuedAt: issued.createdAt };
    },

    /** When the last code for the purpose was sent, for resend throttling. */
    async lastIssuedAt(userId: string, purpose: VerificationPurpose): Promise<Date | null> {
      const last = await VerificationCode.query(deps.db).where({ userId, purpose }).orderBy('createdAt', 'desc').first();
      return last?.createdAt ?? null;
    },

    /**
     * Checks a code against the user's live one and uses it up when it is right. A wrong guess
     * counts against the code; a code that was right but late answers `expired`.
     */
    async consume(
      input: { userId: string; purpose: VerificationPurpose; code: string; target?: string },
      db: Database = deps.db,
    ): Promise<CodeCheck> {
      const live = await VerificationCode.query(db)
        .where({ userId: input.userId, purpose: input.purpose })
        .whereNull('consumedAt')
        .orderBy('createdAt', 'desc')
        .forUpdate()
        .first();
      if (!live) return 'invalid';
      const right =
        /^\d{6}$/.test(input.code) &&
        timingSafeEqual(hashCode(input.code), Buffer.from(live.codeHash, 'hex')) &&
        (input.target === undefined || input.target === live.target);
      if (!right) {
        const failedAttempts = live.failedAttempts + 1;
        await live.$query(db).patch({ failedAttempts, ...(failedAttempts >= MAX_FAILED_ATTEMPTS ? { consumedAt: new Date() } : {}) });
        return 'invalid';
      }
      if (live.expiresAt.getTime() <= Date.now()) {
        await live.$query(db).patch({ consumedAt: new Date() });
        return 'expired';
      }
      await live.$query(db).patch({ consumedAt: new Date() });
      return 'valid';
    },
  };
}

export type VerificationCodes = ReturnType<typeof createVerificationCodes>;
