import { randomInt } from 'node:crypto';
import { BillingAccount, bookTransaction, newReferralId, Organization, Referral, ReferralConfiguration, type Database } from '@engram/db';
import { badRequest } from '../../errors.js';

export type ReferralSettings = {
  referrerRewardAmount: number;
  referredRewardAmount: number;
  maxReferralRewardPerOrg: number;
  enabled: boolean;
};

export type ReferralStats = {
  code: string;
  usageCount: number;
  totalRewardsEarned: number;
  referredOrganizations: Array<{ id: string; name: string; referredAt: Date }>;
};

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 8;

const newReferralCode = () => Array.from({ length: CODE_LENGTH }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');

function settingsOf(row: ReferralConfiguration): ReferralSettings {
  return {
    referrerRewardAmount: row.referrerRewardAmount,
    referredRewardAmount: row.referredRewardAmount,
    maxReferralRewardPerOrg: row.maxReferralRewardPerOrg,
    enabled: row.enabled,
  };
}

/** Referral codes: each organization has one; signing up with it rewards both sides per the configuration. */
export function createReferralService(deps: { db: Database }) {
  const { db } = deps;

  async function configuration(trx: Database = db): Promise<ReferralSettings> {
    return settingsOf((await ReferralConfiguration.query(trx).findById(1)) as ReferralConfiguration);
  }

  async function findReferrer(code: string): Promise<BillingAccount | undefined> {
    return BillingAccount.query(db).where('referralCode', code.trim().toUpperCase()).first();
  }

  return {
    getReferralConfiguration: () => configuration(),

    async setReferralConfiguration(changes: Partial<ReferralSettings>): Promise<ReferralSettings> {
      return settingsOf(await ReferralConfiguration.query(db).patchAndFetchById(1, changes));
    },

    /** The organization's code, made on first ask. */
    async referralCode(organizationId: string): Promise<string> {
      await BillingAccount.query(db).insert({ organizationId } as BillingAccount).onConflict('organizationId').ignore();
      for (;;) {
        const current = await BillingAccount.query(db).forOrg(organizationId).first();
        if (current?.referralCode) return current.referralCode;
        try {
          await BillingAccount.query(db).forOrg(organizationId).whereNull('referralCode').patch({ referralCode: newReferralCode() });
        } catch (error) {
          // Another organization drew the same code: draw again.
          if ((error as { code?: string }).code !== '23505') throw error;
        }
      }
    },

    async validate(code: string): Promise<boolean> {
      const settings = await configuration();
      return settings.enabled && (await findReferrer(code)) !== undefined;
    },

    async stats(organizationId: string, code: string): Promise<ReferralStats> {
      const referrals = await Referral.query(db).where('referrerOrganizationId', organizationId).orderBy('createdAt', 'desc');
      const names = new Map(
        (await Organization.query(db).findByIds(referrals.map((referral) => referral.referredOrganizationId))).map((org) => [org.id, org.name]),
      );
      return {
        code,
        usageCount: referrals.length,
        totalRewardsEarned: referrals.reduce((sum, referral) => sum + referral.referrerReward, 0),
        referredOrganizations: referrals.map((referral) => ({
          id: referral.referredOrganizationId,
          name: names.get(referral.referredOrganizationId) ?? '',
          referredAt: referral.createdAt,
        })),
      };
    },

    /**
     * Rewards a new organization and its referrer. The referrer's rewards stop at `maxReferralRewardPerOrg`
     * in total; an organization is referred at most once, and never by itself. `within` is the transaction that
     * creates the organization at sign-up, so an account is never made without the referral it was promised.
     */
    async applyReferral(referredOrganizationId: string, code: string, within?: Database): Promise<Referral> {
      const inTransaction = <T>(work: (trx: Database) => Promise<T>) => (within ? work(within) : db.transaction(work));
      return inTransaction(async (trx) => {
        const settings = await configuration(trx);
        if (!settings.enabled) throw badRequest('referralsDisabled', 'Referrals are not enabled');
        const referrer = await BillingAccount.query(trx).where('referralCode', code.trim().toUpperCase()).first();
        if (!referrer || referrer.organizationId === referredOrganizationId) throw badRequest('invalidReferralCode', 'This referral code does not exist');
        await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`referrer:${referrer.organizationId}`]);
        const earned = Number(
          ((await Referral.query(trx).where('referrerOrganizationId', referrer.organizationId).sum('referrerReward as total').first()) as unknown as {
            total: string | null;
          }).total ?? 0,
        );
        const referrerReward = Math.max(0, Math.min(settings.referrerRewardAmount, settings.maxReferralRewardPerOrg - earned));
        const id = newReferralId();
        const referral = await Referral.query(trx)
          .insert({
            id,
            referrerOrganizationId: referrer.organizationId,
            referredOrganizationId,
            code: referrer.referralCode as string,
            referrerReward,
            referredReward: settings.referredRewardAmount,
          } as Referral)
          .returning('*');
        const rewards = [
          { organizationId: referrer.organizationId, amount: referrerReward, side: 'referrer' },
          { organizationId: referredOrganizationId, amount: settings.referredRewardAmount, side: 'referred' },
        ];
        for (const reward of rewards.filter((candidate) => candidate.amount > 0)) {
          await bookTransaction(trx, {
            organizationId: reward.organizationId,
            type: 'addition',
            amount: reward.amount,
            source: 'referral',
            note: reward.side === 'referrer' ? 'Referral reward' : 'Welcome credits for joining through a referral',
            metadata: { referralId: id, referrerOrganizationId: referrer.organizationId, referredOrganizationId },
            idempotencyKey: `referral:${id}:${reward.side}`,
          });
        }
        return referral;
      });
    },
  };
}

export type ReferralService = ReturnType<typeof createReferralService>;
