/** Where emails are delivered: an SMTP relay, or none (they wait in the outbox). */
export type SmtpConfig = { url: string; from: string } | null;

export class NotifierConfigError extends Error {}

const DEFAULT_FROM = 'Engram <no-reply@localhost>';

/** ENGRAM_SMTP_URL and ENGRAM_EMAIL_FROM, parsed by each process that sends notifications (the API, the worker). */
export function parseSmtpConfig(env: NodeJS.ProcessEnv): SmtpConfig {
  const url = env.ENGRAM_SMTP_URL || undefined;
  const from = env.ENGRAM_EMAIL_FROM || DEFAULT_FROM;
  if (from.length < 3) throw new NotifierConfigError('ENGRAM_EMAIL_FROM: must be at least 3 characters, like Engram <no-reply@example.com>');
  if (url === undefined) return null;
  if (!URL.canParse(url) || !/^smtps?:$/.test(new URL(url).protocol)) {
    throw new NotifierConfigError('ENGRAM_SMTP_URL: must be an smtp:// or smtps:// URL, like smtp://user:password@mail.example.com:587');
  }
  return { url, from };
}
