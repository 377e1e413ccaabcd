import { GiftCode, type Database } from '@engram/db';
import { badRequest, NotFoundError } from '../../errors.js';
import type { GiftCodeInput } from '../billing/gift-codes.js';

/** What billing's gift-code service leaves to the admin area: editing and deleting a code. */
export function createAdminGiftCodeService(deps: { db: Database }) {
  const { db } = deps;
  return {
    async update(id: string, input: GiftCodeInput): Promise<GiftCode> {
      const taken = await GiftCode.query(db).whereRaw('lower(code) = lower(?)', [input.code]).whereNot('id', id).first();
      if (taken) throw badRequest('giftCodeAlreadyExists', `A gift code ${input.code} already exists`);
      const updated = await GiftCode.query(db).patchAndFetchById(id, {
        code: input.code,
        name: input.name,
        description: input.description ?? '',
        redemptionAmount: input.redemptionAmount,
        maxUses: input.maxUses ?? null,
        maxUsesPerOrganization: input.maxUsesPerOrganization ?? 1,
        expiresAt: input.expiresAt ?? null,
        creditExpiryTimeMs: input.creditExpiryTimeMs ?? null,
      });
      if (!updated) throw new NotFoundError('Gift code');
      return updated;
    },

    async delete(id: string): Promise<void> {
      if ((await GiftCode.query(db).deleteById(id)) === 0) throw new NotFoundError('Gift code');
    },
  };
}

export type AdminGiftCodeService = ReturnType<typeof createAdminGiftCodeService>;
