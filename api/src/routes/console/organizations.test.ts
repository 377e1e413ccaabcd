import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiKey, Organization, OrganizationInvite, OrganizationMember, VerifiedDomain } from '@engram/db';
import { startTestStack } from '@engram/testing';
import { ConsoleClient } from '@engram/testing/cookie-jar';
import { inviteMember, latestCode, signUp, uniqueEmail } from './console-test-support.js';

const stack = await startTestStack({ inProcessWorker: false });
afterAll(() => stack.stop());

describe('organizations', () => {
  it('creates one, shows, renames and deletes the acting organization', async () => {
    const user = await signUp(stack);
    const created = await user.client.post('/organizations', { name: 'Acme' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(/^org-/), name: 'Acme' });

    const self = await user.client.get('/organizations/self');
    expect(self.body).toEqual({ id: created.body.id, name: 'Acme', isAdmin: false, isOwner: true, createdAt: expect.any(String), updatedAt: expect.any(String) });

    const renamed = await user.client.patch('/organizations/self', { name: 'Acme Inc' });
    expect(renamed.body).toMatchObject({ id: created.body.id, name: 'Acme Inc' });

    const preferences = await user.client.get('/organizations/self/preferences');
    expect(preferences.body).toEqual({ defaultProjectId: expect.stringMatching(/^project-/) });

    const billing = await user.client.get('/organizations/self/billing-info');
    // A new organization holds the free tier's monthly grant until the period ends at the next month's start.
    const now = new Date();
    const periodEnd = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    expect(billing.body).toEqual({ billingTier: 'free', totalCredits: 5000, recurrentCredits: 5000, isCancelled: false, billingPeriodEnd: periodEnd });

    expect((await user.client.delete('/organizations/self')).body).toEqual({ success: true });
    expect(await Organization.query(stack.db).findById(created.body.id)).toBeUndefined();
    // The user falls back to the organization they still belong to.
    expect((await user.client.get('/organizations/self')).body.id).toBe(user.organizationId);
  });

  it('refuses a name over 100 characters, naming the field', async () => {
    const user = await signUp(stack);
    const long = await user.client.patch('/organizations/self', { name: 'n'.repeat(101) });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ errorCode: 'validation', issues: [{ loc: ['body', 'name'] }] });
    const huge = await user.client.post('/organizations', { name: 'n'.repeat(100_000) });
    expect(huge.status).toBe(400);
    expect(huge.body.issues[0].loc).toEqual(['body', 'name']);
  });

  it('says what deleting takes with it, and lets its owner alone delete it', async () => {
    const owner = await signUp(stack);
    const created = await owner.client.post('/organizations', { name: 'Doomed' });
    const admin = await inviteMember(stack, owner, 'admin');
    await admin.client.put('/user/self/active-organization', { activeOrganizationId: created.body.id });
    await owner.client.post('/api-keys', { name: 'one' });
    expect((await owner.client.get('/organizations/self/deletion-impact')).body).toEqual({ members: 2, apiKeys: 1, agents: 0, projects: 1, templates: 0 });
    expect((await admin.client.get('/organizations/self')).body).toMatchObject({ id: created.body.id, isOwner: false });
    const refused = await admin.client.delete('/organizations/self');
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: "Only the organization's owner can delete it", errorCode: 'noPermission' });
    expect((await owner.client.delete('/organizations/self')).body).toEqual({ success: true });
    expect(await Organization.query(stack.db).findById(created.body.id)).toBeUndefined();
    expect(await ApiKey.query(stack.db).where({ organizationId: created.body.id }).resultSize()).toBe(0);
    expect(await OrganizationMember.query(stack.db).where({ organizationId: created.body.id }).resultSize()).toBe(0);
  });

  it('lets a member leave, but not its last admin, and hands ownership to the next admin', async () => {
    const owner = await signUp(stack);
    const editor = await inviteMember(stack, owner, 'editor');
    const lastAdmin = await owner.client.post('/organizations/self/leave');
    expect(lastAdmin.status).toBe(400);
    expect(lastAdmin.body).toEqual({ message: 'You are its last admin: make another member an admin before you leave', errorCode: 'lastAdmin' });

    const left = await editor.client.post('/organizations/self/leave');
    expect(left.body).toEqual({ activeOrganizationId: null });
    expect((await editor.client.get('/organizations/self')).status).toBe(403);
    expect((await owner.client.get('/organizations/self/members')).body.members).toHaveLength(1);

    const admin = await inviteMember(stack, owner, 'admin');
    expect((await owner.client.post('/organizations/self/leave')).body).toEqual({ activeOrganizationId: null });
    expect((await admin.client.get('/organizations/self')).body).toMatchObject({ id: owner.organizationId, isOwner: true });
    const alone = await admin.client.post('/organizations/self/leave');
    expect(alone.body).toEqual({ message: 'You are its only member: delete the organization instead', errorCode: 'lastAdmin' });
  });

  it('answers 403 noPermission on organization routes to a user who belongs to none', async () => {
    const user = await signUp(stack);
    await user.client.delete('/organizations/self');
    const self = await user.client.get('/organizations/self');
    expect(self.status).toBe(403);
    expect(self.body.errorCode).toBe('noPermission');
    expect((await user.client.get('/user/self')).body.activeOrganizationId).toBeNull();
  });
});

describe('members', () => {
  it('lists members with roles, changes roles with custom permissions, and removes members', async () => {
    const admin = await signUp(stack, { name: 'Admin' });
    const editor = await inviteMember(stack, admin, 'editor');

    const members = await admin.client.get('/organizations/self/members');
    expect(members.body).toEqual({
      members: [
        expect.objectContaining({ id: admin.userId, name: 'Admin', email: admin.email, role: 'admin', customPermissions: [] }),
        expect.objectContaining({ id: editor.userId, email: editor.email, role: 'editor' }),
      ],
      hasNextPage: false,
    });
    const searched = await admin.client.get(`/organizations/self/members?search=${encodeURIComponent(editor.email)}`);
    expect(searched.body.members.map((member: { id: string }) => member.id)).toEqual([editor.userId]);
    const paged = await admin.client.get('/organizations/self/members?limit=1');
    expect(paged.body).toMatchObject({ members: [expect.objectContaining({ id: admin.userId })], hasNextPage: true });

    const custom = await admin.client.patch(`/organizations/self/members/${editor.userId}/role`, {
      role: 'custom',
      customPermissions: ['read_agents', 'read_projects'],
    });
    expect(custom.body).toEqual({ success: true });
    expect(await OrganizationMember.query(stack.db).forOrg(admin.organizationId).findOne({ userId: editor.userId })).toMatchObject({
      role: 'custom',
      customPermissions: ['read_agents', 'read_projects'],
    });
    const unknownPermission = await admin.client.patch(`/organizations/self/members/${editor.userId}/role`, {
      role: 'custom',
      customPermissions: ['all_scopes'],
    });
    expect(unknownPermission.body.errorCode).toBe('validation');

    const removed = await admin.client.delete(`/organizations/self/members/${editor.userId}`);
    expect(removed.body).toEqual({ success: true });
    expect((await editor.client.get('/organizations/self')).status).toBe(403);
    expect((await admin.client.delete(`/organizations/self/members/${editor.userId}`)).status).toBe(404);
  });

  it('keeps at least one admin and refuses to remove yourself', async () => {
    const admin = await signUp(stack);
    const self = await admin.client.delete(`/organizations/self/members/${admin.userId}`);
    expect(self.status).toBe(400);
    expect(self.body).toEqual({ message: 'You cannot remove yourself' });

    const demote = await admin.client.patch(`/organizations/self/members/${admin.userId}/role`, { role: 'editor' });
    expect(demote.body).toEqual({ message: 'An organization needs at least one admin', errorCode: 'lastAdmin' });

    const other = await inviteMember(stack, admin, 'admin');
    expect((await other.client.delete('/user/self')).status).toBe(200);
    const soleAdminLeaving = await admin.client.delete('/user/self');
    expect(soleAdminLeaving.status).toBe(200);
  });

  it('refuses to delete an account that is the last admin of an organization with other members', async () => {
    const admin = await signUp(stack);
    await inviteMember(stack, admin, 'analyst');
    const deleted = await admin.client.delete('/user/self');
    expect(deleted.body.errorCode).toBe('lastAdmin');
  });

  it("stops the removed member's API keys, which act with their creator's membership", async () => {
    const admin = await signUp(stack);
    const editor = await inviteMember(stack, admin, 'editor');
    const key = await editor.client.post('/api-keys', { name: 'editor key' });
    expect(key.status).toBe(201);
    const health = () => fetch(`${stack.baseUrl}/v1/agents/`, { headers: { authorization: `Bearer ${key.body.apiKey}` } });
    expect((await health()).status).toBe(200);
    await admin.client.delete(`/organizations/self/members/${editor.userId}`);
    expect((await health()).status).toBe(401);
    expect(await ApiKey.query(stack.db).findById(key.body.id)).toBeUndefined();
  });
});

describe('invites', () => {
  it('invites a new email (201), shows and regenerates the code, and lets the invitee sign up', async () => {
    const admin = await signUp(stack);
    const email = uniqueEmail('invitee');
    const invited = await admin.client.post('/organizations/self/invited-members', { email, role: 'editor' });
    expect(invited.status).toBe(201);
    expect(invited.body).toEqual({
      id: expect.any(String),
      email,
      role: 'editor',
      inviteCode: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      emailDelivery: 'outbox',
    });
    expect(await latestCode(stack.db, email)).toBe(invited.body.inviteCode);

    const visitor = new ConsoleClient(stack.baseUrl);
    const lookup = await visitor.get(`/invites/${invited.body.inviteCode}`);
    expect(lookup.body).toEqual({ organizationName: "Test User's organization", email });

    // The list shows the invitation as created, without how its email went out.
    const { emailDelivery: _delivery, ...invitation } = invited.body;
    const list = await admin.client.get('/organizations/self/invited-members');
    expect(list.body).toEqual({ members: [invitation], hasNextPage: false });

    const regenerated = await admin.client.post(`/organizations/self/invited-members/${invited.body.id}/regenerate`);
    expect(regenerated.body.inviteCode).not.toBe(invited.body.inviteCode);
    expect((await visitor.get(`/invites/${invited.body.inviteCode}`)).status).toBe(404);
    expect((await visitor.get(`/invites/${invited.body.inviteCode}`)).body).toEqual({ message: 'Invite not found' });

    const stale = await visitor.post('/user/new-with-invite', { email, name: 'Invitee', password: 'invitee password', inviteCode: invited.body.inviteCode });
    expect(stale.status).toBe(400);
    expect(stale.body).toEqual({ message: 'Invalid invite code', errorCode: 'invalidInviteCode' });

    const otherEmail = await visitor.post('/user/new-with-invite', {
      email: uniqueEmail('someone-else'),
      name: 'Someone',
      password: 'someone password',
      inviteCode: regenerated.body.inviteCode,
    });
    expect(otherEmail.body.errorCode).toBe('invalidInviteCode');

    const joined = await visitor.post('/user/new-with-invite', { email, name: 'Invitee', password: 'invitee password', inviteCode: regenerated.body.inviteCode });
    expect(joined.status).toBe(201);
    const self = await visitor.get('/user/self');
    expect(self.body).toMatchObject({ activeOrganizationId: admin.organizationId, isVerified: true });
    expect(await OrganizationInvite.query(stack.db).forOrg(admin.organizationId)).toEqual([]);

    const taken = await new ConsoleClient(stack.baseUrl).post('/user/new-with-invite', {
      email,
      name: 'Again',
      password: 'invitee password',
      inviteCode: regenerated.body.inviteCode,
    });
    expect(taken.body.errorCode).toBe('emailAlreadyTaken');
  });

  it('adds an existing account at once (200), and refuses duplicates with their error codes', async () => {
    const admin = await signUp(stack);
    const existing = await signUp(stack, { name: 'Existing' });
    const added = await admin.client.post('/organizations/self/invited-members', { email: existing.email.toUpperCase(), role: 'analyst' });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ id: existing.userId, email: existing.email, name: 'Existing' });
    expect((await existing.client.get('/user/self/organizations')).body.organizations).toHaveLength(2);

    const again = await admin.client.post('/organizations/self/invited-members', { email: existing.email });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: 'User already in the organization', errorCode: 'userAlreadyInOrganization' });

    const email = uniqueEmail();
    await admin.client.post('/organizations/self/invited-members', { email });
    const duplicate = await admin.client.post('/organizations/self/invited-members', { email });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body).toEqual({ message: 'User already invited', errorCode: 'userAlreadyInvited' });

    const invites = await admin.client.get('/organizations/self/invited-members');
    const removed = await admin.client.delete(`/organizations/self/invited-members/${invites.body.members[0].id}`);
    expect(removed.body).toEqual({ success: true });
    expect((await admin.client.get('/organizations/self/invited-members')).body.members).toEqual([]);
  });

  it('leaves seats beyond the tier limit to billing: off here, a fifth member is invited (on, organizationMemberLimitReached)', async () => {
    const admin = await signUp(stack);
    await inviteMember(stack, admin, 'editor');
    for (let seat = 3; seat <= 5; seat++) {
      expect((await admin.client.post('/organizations/self/invited-members', { email: uniqueEmail() })).status).toBe(201);
    }
  });
});

describe('verified domains and invite rules', () => {
  it('lets accounts on a verified domain join with the rule role', async () => {
    const admin = await signUp(stack);
    const domain = `${randomUUID().slice(0, 8)}.example.org`;
    const verified = await VerifiedDomain.query(stack.db)
      .insert({ id: randomUUID(), organizationId: admin.organizationId, domain })
      .returning('*');

    expect((await admin.client.get('/organizations/self/verified-domains')).body).toEqual({ domains: [{ id: verified.id, domain }] });

    const missing = await admin.client.post('/organizations/self/invite-rules', { domainId: randomUUID(), role: 'analyst' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ message: 'Domain not found', errorCode: 'domainNotFound' });

    const rule = await admin.client.post('/organizations/self/invite-rules', { domainId: verified.id, role: 'analyst' });
    expect(rule.status).toBe(201);
    expect(rule.body).toEqual({ id: expect.any(String), domain, role: 'analyst' });
    const duplicate = await admin.client.post('/organizations/self/invite-rules', { domainId: verified.id, role: 'editor' });
    expect(duplicate.body).toEqual({ message: 'A rule for this domain already exists', errorCode: 'ruleAlreadyExists' });
    expect((await admin.client.get('/organizations/self/invite-rules')).body).toEqual({ rules: [rule.body] });

    const colleague = await signUp(stack, { email: `colleague@${domain}` });
    expect(await OrganizationMember.query(stack.db).forOrg(admin.organizationId).findOne({ userId: colleague.userId })).toMatchObject({
      role: 'analyst',
    });

    expect((await admin.client.delete(`/organizations/self/invite-rules/${rule.body.id}`)).body).toEqual({ success: true });
    expect((await admin.client.get('/organizations/self/invite-rules')).body).toEqual({ rules: [] });
  });
});
