import { BaseModel } from './base-model.js';

/** A signed-in browser: the cookie carries a random token, the row only its hash. */
export class Session extends BaseModel {
  static override tableName = 'sessions';
  declare id: string;
  declare userId: string;
  declare tokenHash: string;
  declare userAgent: string | null;
  declare ip: string | null;
  declare expiresAt: Date;
  declare revokedAt: Date | null;
}
