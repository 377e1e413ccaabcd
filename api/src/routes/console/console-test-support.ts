import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { OutboxMessage, User, type Database, type Role } from '@engram/db';
import { ConsoleClient } from '@engram/testing/cookie-jar';
import type { TestStack } from '@engram/testing';

/** A signed-up console user with their browser. */
export type ConsoleUser = {
  client: ConsoleClient;
  email: string;
  password: string;
  userId: string;
  organizationId: string;
};

export const uniqueEmail = (label = 'user') => `${label}-${randomBytes(5).toString('hex')}@example.com`;

/** Signs up a new account (which gets an organization of its own) and returns it signed in. */
export async function signUp(stack: TestStack, options: { name?: string; email?: string } = {}): Promise<ConsoleUser> {
  const client = new ConsoleClient(stack.baseUrl);
  const email = options.email ?? uniqueEmail();
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const created = await client.post('/user/new', { email, name: options.name ?? 'Test User', password });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const self = await client.get('/user/self');
  return { client, email, password, userId: self.body.id, organizationId: self.body.activeOrganizationId };
}

/** The newest code sent to an address through the outbox. */
export async function latestCode(db: Database, recipient: string): Promise<string> {
  const message = await OutboxMessage.query(db).where({ recipient }).orderBy('createdAt', 'desc').first();
  const code = /code (?:is )?(\S+?)\.?(?:\s|$)/.exec(message?.body ?? '')?.[1];
  if (!code) throw new Error(`no code was sent to ${recipient}`);
  return code;
}

/** Invites a new person into the admin's organization with a role, and signs them up through the invite. */
export async function inviteMember(stack: TestStack, admin: ConsoleUser, role: Role): Promise<ConsoleUser> {
  const email = uniqueEmail(role);
  const invite = await admin.client.post('/organizations/self/invited-members', { email, role });
  expect(invite.status, JSON.stringify(invite.body)).toBe(201);
  const client = new ConsoleClient(stack.baseUrl);
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const joined = await client.post('/user/new-with-invite', { email, name: `${role} member`, password, inviteCode: invite.body.inviteCode });
  expect(joined.status, JSON.stringify(joined.body)).toBe(201);
  const user = await User.query(stack.db).findOne({ email });
  return { client, email, password, userId: user!.id, organizationId: admin.organizationId };
}

/** The nearest-rank percentile of raw values: the smallest with at least `fraction` of them at or below it. */
export function nearestRank(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(fraction * sorted.length)) - 1] as number;
}

/** A latency percentile read from the metric rollups' histograms names its run within 2.2% (of milliseconds + 1). */
export function expectLatencyNear(actual: number | null, exact: number): void {
  expect(actual).not.toBeNull();
  expect(Math.abs((actual as number) - exact)).toBeLessThanOrEqual(0.022 * (exact + 1));
}
