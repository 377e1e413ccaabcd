import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { OutboxMessage } from '@engram/db';
import { reservePort, startTestStack, type TestStack } from '@engram/testing';
import { ConfigError } from '@engram/temporal/client';
import { parseApiConfig } from '../../config.js';
import { createSmtpNotifier } from '@engram/integrations/notifications';

type ReceivedMail = { from: string | undefined; to: string[]; raw: string };

let stack: TestStack;
let smtp: SMTPServer;
let smtpUrl: string;
const received: ReceivedMail[] = [];

beforeAll(async () => {
  stack = await startTestStack({ inProcessWorker: false });
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  smtp.listen(0, '127.0.0.1');
  await once(smtp.server, 'listening');
  smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
  await stack?.stop();
});

const uniqueRecipient = () => `smtp-${Math.random().toString(36).slice(2)}@example.com`;

describe('SMTP notifier', () => {
  it('delivers an email over SMTP and marks its outbox row delivered', async () => {
    const failures: unknown[] = [];
    const notifier = createSmtpNotifier({
      db: stack.db,
      smtpUrl,
      from: 'Engram <no-reply@engram.test>',
      onDeliveryFailure: (error) => failures.push(error),
    });
    expect(notifier.emailDelivery).toBe('smtp');
    const recipient = uniqueRecipient();
    await notifier.send({ channel: 'email', recipient, subject: 'Verify your email', body: 'Your verification code is 424242.' });

    expect(failures).toEqual([]);
    const mail = received.find((message) => message.to.includes(recipient));
    expect(mail).toMatchObject({ from: 'no-reply@engram.test', to: [recipient] });
    expect(mail?.raw).toContain('Subject: Verify your email');
    expect(mail?.raw).toContain('Your verification code is 424242.');
    const [row] = await OutboxMessage.query(stack.db).where({ recipient });
    expect(row).toMatchObject({ channel: 'email', subject: 'Verify your email', deliveredAt: expect.any(Date) });
  });

  it('keeps an email it cannot deliver in the outbox, undelivered, and reports the failure without throwing', async () => {
    const failures: Array<{ subject: string }> = [];
    const notifier = createSmtpNotifier({
      db: stack.db,
      // Reserved, not listened on: connections to it are refused.
      smtpUrl: `smtp://127.0.0.1:${await reservePort()}`,
      from: 'no-reply@engram.test',
      onDeliveryFailure: (_error, notification) => failures.push(notification),
    });
    const recipient = uniqueRecipient();
    await notifier.send({ channel: 'email', recipient, subject: 'Reset your password', body: 'Code 111111' });

    expect(failures).toEqual([expect.objectContaining({ subject: 'Reset your password' })]);
    const [row] = await OutboxMessage.query(stack.db).where({ recipient });
    expect(row).toMatchObject({ subject: 'Reset your password', deliveredAt: null });
  });

  it('leaves text messages in the outbox for an SMS relay', async () => {
    const before = received.length;
    const notifier = createSmtpNotifier({ db: stack.db, smtpUrl, from: 'no-reply@engram.test', onDeliveryFailure: () => undefined });
    const recipient = `+1555${Math.floor(Math.random() * 1e7)}`;
    await notifier.send({ channel: 'sms', recipient, subject: 'Verification code', body: 'Your verification code is 1234.' });

    expect(received.length).toBe(before);
    expect(await OutboxMessage.query(stack.db).where({ recipient })).toEqual([expect.objectContaining({ channel: 'sms', deliveredAt: null })]);
  });
});

describe('mail and support-chat configuration', () => {
  it('is off unless configured', () => {
    expect(parseApiConfig({})).toMatchObject({ smtp: null, supportChatSecret: null });
  });

  it('reads the SMTP URL, the sender and the support-chat secret', () => {
    const config = parseApiConfig({
      ENGRAM_SMTP_URL: 'smtps://mailer:secret@mail.example.com:465',
      ENGRAM_EMAIL_FROM: 'Engram <hello@example.com>',
      ENGRAM_SUPPORT_CHAT_SECRET: 'a-support-chat-secret-of-some-length',
    });
    expect(config.smtp).toEqual({ url: 'smtps://mailer:secret@mail.example.com:465', from: 'Engram <hello@example.com>' });
    expect(config.supportChatSecret).toBe('a-support-chat-secret-of-some-length');
  });

  it('names the variable when a value is wrong', () => {
    expect(() => parseApiConfig({ ENGRAM_SMTP_URL: 'https://mail.example.com' })).toThrow(ConfigError);
    expect(() => parseApiConfig({ ENGRAM_SMTP_URL: 'https://mail.example.com' })).toThrow(/ENGRAM_SMTP_URL/);
    expect(() => parseApiConfig({ ENGRAM_SUPPORT_CHAT_SECRET: 'short' })).toThrow(/ENGRAM_SUPPORT_CHAT_SECRET/);
  });
});
