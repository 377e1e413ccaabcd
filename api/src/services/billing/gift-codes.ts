import { bookTransaction, GiftCode, GiftCodeRedemption, newGiftCodeId, newRedemptionId, type Database } from '@engram/db';
import { badRequest, ConflictError, NotFoundError } from '../../errors.js';

export type GiftCodeInput = {
  name: string;
  code: string;
  description?: string | undefined;
  redemptionAmount: number;
  maxUses?: number | null | undefined;
  maxUsesPerOrganization?: number | undefined;
  expiresAt?: Date | null | undefined;
  creditExpiryTimeMs?: number | null | undefined;
};

export type Redemption = { code: string; amount: number; redeemedAt: Date; transactionId: string };

/** Gift codes: created by platform admins, redeemed by organizations for credits. Codes compare case-insensitively. */
export function createGiftCodeService(deps: { db: Database; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    async createGiftCode(input: GiftCodeInput): Promise<GiftCode> {
      const taken = await GiftCode.query(db).whereRaw('lower(code) = lower(?)', [input.code]).first();
      if (taken) throw badRequest('giftCodeAlreadyExists', `A gift code ${input.code} already exists`);
      return GiftCode.query(db)
        .insert({
          id: newGiftCodeId(),
          code: input.code,
          name: input.name,
          description: input.description ?? '',
          redemptionAmount: input.redemptionAmount,
          maxUses: input.maxUses ?? null,
          maxUsesPerOrganization: input.maxUsesPerOrganization ?? 1,
          expiresAt: input.expiresAt ?? null,
          creditExpiryTimeMs: input.creditExpiryTimeMs ?? null,
        } as GiftCode)
        .returning('*');
    },

    async listGiftCodes(): Promise<GiftCode[]> {
      return GiftCode.query(db).orderBy('createdAt', 'desc');
    },

    async getGiftCode(id: string): Promise<GiftCode> {
      const found = await GiftCode.query(db).findById(id);
      if (!found) throw new NotFoundError('Gift code');
      return found;
    },

    async setGiftCodeDisabled(id: string, disabled: boolean): Promise<GiftCode> {
      const updated = await GiftCode.query(db).patchAndFetchById(id, { disabledAt: disabled ? now() : null });
      if (!updated) throw new NotFoundError('Gift code');
      return updated;
    },

    async listRedemptions(giftCodeId: string): Promise<GiftCodeRedemption[]> {
      return GiftCodeRedemption.query(db).where('giftCodeId', giftCodeId).orderBy('createdAt', 'desc');
    },

    /**
     * Redeems a code for the organization. The code's use counter is raised by a conditional update, which
     * PostgreSQL serializes on the code's row, so concurrent redemptions never exceed `maxUses`; a per-organization
     * advisory lock does the same for `maxUsesPerOrganization`.
     */
    async redeem(organizationId: string, code: string): Promise<Redemption> {
      return db.transaction(async (trx) => {
        const giftCode = await GiftCode.query(trx).whereRaw('lower(code) = lower(?)', [code.trim()]).first();
        if (!giftCode) throw badRequest('giftCodeNotFound', 'This gift code does not exist');
        if (giftCode.disabledAt) throw badRequest('giftCodeDisabled', 'This gift code is disabled');
        const at = now();
        if (giftCode.expiresAt && giftCode.expiresAt <= at) throw badRequest('giftCodeExpired', 'This gift code has expired');

        await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`gift_code:${giftCode.id}:${organizationId}`]);
        const redeemedHere = await GiftCodeRedemption.query(trx).forOrg(organizationId).where('giftCodeId', giftCode.id).resultSize();
        if (redeemedHere >= giftCode.maxUsesPerOrganization) {
          throw badRequest('giftCodeMaxUsesPerOrgReached', 'Your organization has already redeemed this gift code');
        }
        const admitted: { rowCount: number } = await trx.raw(
          'update gift_codes set uses = uses + 1, updated_at = now() where id = ? and (max_uses is null or uses < max_uses)',
          [giftCode.id],
        );
        if (admitted.rowCount === 0) throw badRequest('giftCodeMaxUsesReached', 'This gift code has been used up');

        const redemptionId = newRedemptionId();
        const expiryMs = giftCode.creditExpiryTimeMs === null ? null : Number(giftCode.creditExpiryTimeMs);
        const booked = await bookTransaction(trx, {
          organizationId,
          type: 'addition',
          amount: giftCode.redemptionAmount,
          source: 'gift_code',
          note: `Gift code ${giftCode.code}`,
          metadata: { giftCodeId: giftCode.id, redemptionId },
          idempotencyKey: `gift_code:${redemptionId}`,
          expiresAt: expiryMs === null ? null : new Date(at.getTime() + expiryMs),
        });
        if (!booked) throw new ConflictError('This redemption was already booked');
        await GiftCodeRedemption.query(trx).insert({
          id: redemptionId,
          giftCodeId: giftCode.id,
          organizationId,
          amount: giftCode.redemptionAmount,
          transactionId: booked.transactionId,
        } as GiftCodeRedemption);
        return { code: giftCode.code, amount: giftCode.redemptionAmount, redeemedAt: at, transactionId: booked.transactionId };
      });
    },
  };
}

export type GiftCodeService = ReturnType<typeof createGiftCodeService>;
