import './quiet-runtime-warning.js';
import { createHash } from 'node:crypto';
import { errors, type Adapter, type AdapterFactory, type AdapterPayload } from 'oidc-provider';
import { OAuthConnection, OAuthProviderRecord, type Database } from '@engram/db';

/** RFC 8628 §3.5: the interval a device starts with, and what each slow_down adds to it. */
export const DEVICE_POLL_INTERVAL_SECONDS = 5;
const SLOW_DOWN_STEP_SECONDS = 5;

/**
 * Expired records stay readable this long, so the library can still tell an expired device code
 * (`expired_token`) or refresh token from one that never existed; after that they are pruned.
 */
const EXPIRED_RECORD_GRACE_MS = 24 * 60 * 60 * 1000;

const hashOf = (value: string) => createHash('sha256').update(value).digest('base64url');

/**
 * Records found by user code or session uid come back with a handle for an id (their clear id is not
 * stored); the library may save them again under it. Library ids are nanoids, which never hold a colon.
 */
const HANDLE_PREFIX = 'stored:';
const keyOf = (id: string) => (id.startsWith(HANDLE_PREFIX) ? id.slice(HANDLE_PREFIX.length) : hashOf(id));

export type ProviderAdapterDeps = {
  db: Database;
  /** The client metadata of an app, read on every lookup so edits apply at once. */
  findClient(clientId: string): Promise<AdapterPayload | undefined>;
};

/**
 * Persists oidc-provider's records in `oauth_provider_records`. Ids are stored hashed, because an
 * opaque token's id is the token itself; the payload keeps everything else as the library gave it.
 */
export function createProviderAdapterFactory(deps: ProviderAdapterDeps): AdapterFactory {
  const { db } = deps;

  const clients: Adapter = {
    find: (clientId) => deps.findClient(clientId),
    upsert: refuseClientChanges,
    findByUid: refuseClientChanges,
    findByUserCode: refuseClientChanges,
    consume: refuseClientChanges,
    destroy: refuseClientChanges,
    revokeByGrantId: refuseClientChanges,
  };

  return (model) => (model === 'Client' ? clients : recordAdapter(db, model));
}

async function refuseClientChanges(): Promise<never> {
  throw new Error('OAuth apps are registered by platform admins, not through the provider');
}

function recordAdapter(db: Database, model: string): Adapter {
  const records = () => OAuthProviderRecord.query(db).where({ model });

  async function read(where: Record<string, string>): Promise<AdapterPayload | undefined> {
    const found = await records()
      .where(where)
      .where((query) => {
        query.whereNull('expiresAt').orWhere('expiresAt', '>', new Date(Date.now() - EXPIRED_RECORD_GRACE_MS));
      })
      .first();
    if (!found) return undefined;
    return {
      ...found.payload,
      ...(found.consumedAt ? { consumed: Math.floor(found.consumedAt.getTime() / 1000) } : {}),
    } as AdapterPayload;
  }

  return {
    async upsert(id, payload, expiresIn) {
      const expiresAt = typeof expiresIn === 'number' ? new Date(Date.now() + expiresIn * 1000) : null;
      const { userCode, ...stored } = payload;
      await db('oauth_provider_records')
        .insert({
          model,
          id_hash: keyOf(id),
          // The id (a token's value) is not kept in clear; find() is always given it and puts it back.
          payload: JSON.stringify({ ...stored, jti: undefined }),
          grant_id: payload.grantId ?? null,
          user_code_hash: userCode ? hashOf(userCode) : null,
          uid: payload.uid ?? null,
          expires_at: expiresAt,
          poll_interval_seconds: model === 'DeviceCode' ? DEVICE_POLL_INTERVAL_SECONDS : null,
        })
        .onConflict(['model', 'id_hash'])
        // A device code's user code is set once; later saves of the record do not carry it.
        .merge(['payload', 'grant_id', 'uid', 'expires_at']);
      if (model === 'DeviceCode' || model === 'Interaction') await pruneExpired(db);
    },

    async find(id) {
      const payload = await read({ idHash: keyOf(id) });
      if (!payload) return undefined;
      // The token endpoint is the only reader of device codes by their code: each read is a poll.
      if (model === 'DeviceCode') await enforcePollInterval(db, keyOf(id), payload);
      return { ...payload, jti: id };
    },

    async findByUserCode(userCode) {
      const found = await records().where({ userCodeHash: hashOf(userCode) }).first();
      if (!found) return undefined;
      return { ...(found.payload as AdapterPayload), userCode, jti: `${HANDLE_PREFIX}${found.idHash}`, ...(found.consumedAt ? { consumed: true } : {}) };
    },

    async findByUid(uid) {
      const found = await records().where({ uid }).first();
      return found ? ({ ...found.payload, jti: `${HANDLE_PREFIX}${found.idHash}` } as AdapterPayload) : undefined;
    },

    async consume(id) {
      await records().where({ idHash: keyOf(id) }).patch({ consumedAt: new Date() });
    },

    async destroy(id) {
      await db.transaction(async (trx) => {
        await OAuthProviderRecord.query(trx).where({ model, idHash: keyOf(id) }).delete();
        // A grant ends when its connection is revoked or a rotated refresh token is reused: either way the connection is over.
        if (model === 'Grant') await OAuthConnection.query(trx).where({ grantId: id }).whereNull('revokedAt').patch({ revokedAt: new Date() });
      });
    },

    async revokeByGrantId(grantId) {
      await records().where({ grantId }).delete();
    },
  };
}

async function pruneExpired(db: Database): Promise<void> {
  await OAuthProviderRecord.query(db).where('expiresAt', '<', new Date(Date.now() - EXPIRED_RECORD_GRACE_MS)).delete();
}

/**
 * RFC 8628 §3.5: a device polling a pending code faster than its interval gets `slow_down`, and its
 * interval grows by five seconds for this and every later poll.
 */
async function enforcePollInterval(db: Database, idHash: string, payload: AdapterPayload): Promise<void> {
  const pending = !payload.accountId && !payload.error && (payload.exp ?? Infinity) * 1000 > Date.now();
  if (!pending) return;
  const tooFast = await db.transaction(async (trx) => {
    const record = await OAuthProviderRecord.query(trx).where({ model: 'DeviceCode', idHash }).forUpdate().first();
    if (!record) return false;
    const interval = record.pollIntervalSeconds ?? DEVICE_POLL_INTERVAL_SECONDS;
    const now = new Date();
    const early = record.lastPolledAt !== null && now.getTime() - record.lastPolledAt.getTime() < interval * 1000;
    await OAuthProviderRecord.query(trx)
      .where({ model: 'DeviceCode', idHash })
      .patch({ lastPolledAt: now, pollIntervalSeconds: early ? interval + SLOW_DOWN_STEP_SECONDS : interval });
    return early;
  });
  if (tooFast) throw new errors.SlowDown();
}

/**
 * Ends a grant at once: every code and token issued under it, the grant itself, and its connection.
 * A token presented afterwards is not found, so it fails on its very next request.
 */
export async function revokeGrant(db: Database, grantId: string): Promise<void> {
  await db.transaction(async (trx) => {
    await OAuthProviderRecord.query(trx).where({ grantId }).delete();
    await OAuthProviderRecord.query(trx).where({ model: 'Grant', idHash: hashOf(grantId) }).delete();
    await OAuthConnection.query(trx).where({ grantId }).whereNull('revokedAt').patch({ revokedAt: new Date() });
  });
}
