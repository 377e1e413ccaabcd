import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Encrypts secrets at rest (provider keys, agent secrets, sandbox variables) with AES-256-GCM.
 * The key comes from ENGRAM_SECRET_KEY, parsed once at start and passed in.
 */
export type SecretBox = { encrypt(plain: string): string; decrypt(sealed: string): string };

const VERSION = 'v1';

const stretch = (secretKey: string) => createHash('sha256').update(secretKey).digest();

function open(key: Buffer, iv: string, tag: string, body: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
}

/**
 * `previousKeys`: keys being rotated away from (`scripts/rotate-secret-key.ts`). Secrets sealed with one of
 * them still open; everything is sealed with `secretKey`.
 */
export function createSecretBox(secretKey: string, previousKeys: string[] = []): SecretBox {
  // Any string works as a key: it is stretched to 32 bytes so operators can pass a passphrase or base64.
  const key = stretch(secretKey);
  const openingKeys = [key, ...previousKeys.map(stretch)];
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
    },
    decrypt(sealed) {
      const [version, iv, tag, body] = sealed.split(':');
      if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('not a sealed secret');
      let failure: unknown;
      // GCM's tag tells a wrong key apart: the first key whose tag checks is the one that sealed it.
      for (const candidate of openingKeys) {
        try {
          return open(candidate, iv, tag, body);
        } catch (error) {
          failure = error;
        }
      }
      throw failure;
    },
  };
}

/** Shows enough of a secret to recognise it, never enough to use it. */
export function maskSecret(plain: string): string {
  return plain.length <= 8 ? '****' : `${plain.slice(0, 4)}****${plain.slice(-4)}`;
}
