import { hash, verify } from '@node-rs/argon2';

/**
 * Passwords are hashed with argon2id (the library's default algorithm) at its default cost:
 * 19 MiB, 2 passes, 1 lane, the OWASP minimum for argon2id.
 */
export async function hashPassword(password: string): Promise<string> {
  const hashed = await hash(password);
  if (!hashed.startsWith('$argon2id$')) throw new Error('argon2id is not the hashing algorithm');
  return hashed;
}

/**
 * The hash of a password nobody knows. Verifying against it when an account does not exist costs
 * the same as a real verification, so response times do not tell which emails have accounts.
 */
const UNKNOWN_ACCOUNT_HASH = '$argon2id$v=19$m=19456,t=2,p=1$WxMkRAO5+K3Uc5mSKdpQ+g$yXRBbzCZVbalbl8A+0ebBIT4cuM2Jtj+f4O1BU/kO5Q';

export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  const matches = await verify(passwordHash ?? UNKNOWN_ACCOUNT_HASH, password).catch(() => false);
  return passwordHash !== null && matches;
}
