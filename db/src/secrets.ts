import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Encrypts secrets at rest (provider keys, agent secrets, sandbox variables) with AES-256-GCM.
 * The key comes from ENGRAM_SECRET_KEY, parsed once at start and passed in.
 */
export type SecretBox = { encrypt(plain: string): string; decrypt(sealed: string): string };

const VERSION = 'v1';

export function createSecretBox(secretKey: string): SecretBox {
  // Any string works as a key: it is stretched to 32 bytes so operators can pass a passphrase or base64.
  const key = createHash('sha256').update(secretKey).digest();
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
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
    },
  };
}

/** Shows enough of a secret to recognise it, never enough to use it. */
export function maskSecret(plain: string): string {
  return plain.length <= 8 ? '****' : `${plain.slice(0, 4)}****${plain.slice(-4)}`;
}
