import { BaseModel } from './base-model.js';

export type VerificationPurpose = 'password_reset' | 'email_verification' | 'phone_verification';

/** A short code sent to an address; it expires, and works once. */
export class VerificationCode extends BaseModel {
  static override tableName = 'verification_codes';
  declare id: string;
  declare userId: string;
  declare purpose: VerificationPurpose;
  declare target: string;
  declare codeHash: string;
  declare failedAttempts: number;
  declare expiresAt: Date;
  declare consumedAt: Date | null;
}
