import { createHmac } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createSecretBox, Organization, OrganizationMember, OutboxMessage, Project, Session, User, VerificationCode } from '@engram/db';
import { startTestStack } from '@engram/testing';
import { ConsoleClient } from '@engram/testing/cookie-jar';
import { SESSION_COOKIE } from '../../http/auth.js';
import { createAccountServices } from '../../services/accounts/index.js';
import { createTierLimitGuard } from '../../services/tenancy/tier-limits.js';
import { latestCode, signUp, uniqueEmail } from './console-test-support.js';

const stack = await startTestStack({ inProcessWorker: false });
afterAll(() => stack.stop());

describe('sign-up', () => {
  it('creates the account with its own organization and default project, and signs in with a session cookie', async () => {
    const client = new ConsoleClient(stack.baseUrl);
    const email = uniqueEmail();
    const created = await client.post('/user/new', { email: email.toUpperCase(), name: 'Ada', password: 'correct horse battery' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ success: true });

    const cookie = client.jar.get(SESSION_COOKIE);
    expect(cookie?.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie?.attributes).toMatchObject({ httponly: true, samesite: 'Lax', path: '/' });
    expect(cookie?.attributes.secure).toBeUndefined();

    const self = await client.get('/user/self');
    expect(self.status).toBe(200);
    expect(self.body).toEqual({
      id: expect.stringMatching(/^user-/),
      name: 'Ada',
      email,
      imageUrl: '',
      permissions: [],
      theme: 'auto',
      locale: 'en',
      activeOrganizationId: expect.stringMatching(/^org-/),
      isVerified: false,
      hasOnboarded: false,
      createdAt: expect.any(String),
      hasCloudAccess: true,
      onboardingStatus: null,
      onboardingProgress: { doneSteps: [], projectSlug: 'default-project', agentId: null },
    });

    const organizationId = self.body.activeOrganizationId;
    expect(await OrganizationMember.query(stack.db).forOrg(organizationId)).toEqual([
      expect.objectContaining({ userId: self.body.id, role: 'admin' }),
    ]);
    expect(await Project.query(stack.db).forOrg(organizationId)).toEqual([expect.objectContaining({ slug: 'default-project', isDefault: true })]);
    expect(await Organization.query(stack.db).findById(organizationId)).toMatchObject({ name: "Ada's organization", billingTier: 'free' });

    const user = await User.query(stack.db).findById(self.body.id);
    expect(user?.passwordHash).toMatch(/^\$argon2id\$v=19\$/);
    const [session] = await Session.query(stack.db).where({ userId: self.body.id });
    expect(session?.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(session?.tokenHash).not.toContain(cookie?.value);
  });

  it('answers emailAlreadyTaken whatever the case of the address', async () => {
    const first = await signUp(stack);
    const again = await new ConsoleClient(stack.baseUrl).post('/user/new', { email: first.email.toUpperCase(), name: 'Other', password: 'another password' });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: 'Email already taken', errorCode: 'emailAlreadyTaken' });
  });

  it('validates the body with errorCode validation', async () => {
    const client = new ConsoleClient(stack.baseUrl);
    const short = await client.post('/user/new', { email: uniqueEmail(), name: 'A', password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body).toMatchObject({ errorCode: 'validation', message: 'Password must be at least 8 characters long' });
    const badEmail = await client.post('/user/new', { email: 'not-an-email', name: 'A', password: 'long enough password' });
    expect(badEmail.body).toMatchObject({ errorCode: 'validation', issues: [expect.objectContaining({ loc: ['body', 'email'] })] });
    expect(client.jar.get(SESSION_COOKIE)).toBeUndefined();
  });

  it('with a referral code rewards both organizations; a code that cannot be used refuses the sign-up and makes no account', async () => {
    const { referrals } = stack.services;
    const referrer = await signUp(stack);
    const code = (await referrer.client.get('/referral/code')).body.code as string;
    const credits = async (client: ConsoleClient) => (await client.get('/organizations/self/credits')).body.credits as number;
    const referrerBefore = await credits(referrer.client);

    const disabledEmail = uniqueEmail();
    const whileDisabled = await new ConsoleClient(stack.baseUrl).post('/user/new', { email: disabledEmail, name: 'Early', password: 'long enough password', referralCode: code });
    expect(whileDisabled.body).toEqual({ message: 'Referrals are not enabled', errorCode: 'referralsDisabled' });
    expect(await User.query(stack.db).findOne({ email: disabledEmail })).toBeUndefined();

    await referrals.setReferralConfiguration({ enabled: true, referrerRewardAmount: 300, referredRewardAmount: 100, maxReferralRewardPerOrg: 1000 });
    try {
      const unknownEmail = uniqueEmail();
      const unknown = await new ConsoleClient(stack.baseUrl).post('/user/new', { email: unknownEmail, name: 'Lost', password: 'long enough password', referralCode: 'NOPE1234' });
      expect(unknown.body).toEqual({ message: 'This referral code does not exist', errorCode: 'invalidReferralCode' });
      expect(await User.query(stack.db).findOne({ email: unknownEmail })).toBeUndefined();

      const referred = new ConsoleClient(stack.baseUrl);
      const created = await referred.post('/user/new', { email: uniqueEmail(), name: 'Referred', password: 'long enough password', referralCode: code.toLowerCase() });
      expect(created.status).toBe(201);
      const standalone = await signUp(stack);
      expect(await credits(referred)).toBe((await credits(standalone.client)) + 100);
      expect(await credits(referrer.client)).toBe(referrerBefore + 300);
      expect((await referrer.client.get('/referral/stats')).body).toMatchObject({ usageCount: 1, totalRewardsEarned: 300 });
    } finally {
      await referrals.setReferralConfiguration({ enabled: false });
    }
  });
});

describe('sessions', () => {
  it('refuses signed-in routes without a session, with errorCode unauthenticated', async () => {
    const anonymous = new ConsoleClient(stack.baseUrl);
    const response = await anonymous.get('/user/self');
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: 'Unauthorized', errorCode: 'unauthenticated' });

    const forged = new ConsoleClient(stack.baseUrl);
    forged.jar.store(new Response(null, { headers: { 'set-cookie': `${SESSION_COOKIE}=forged-token; Path=/api` } }));
    expect((await forged.get('/user/self')).status).toBe(401);
  });

  it('answers invalidPassword alike for a wrong password and an unknown email', async () => {
    const user = await signUp(stack);
    const wrong = await new ConsoleClient(stack.baseUrl).post('/user/login', { email: user.email, password: 'wrong password' });
    const unknown = await new ConsoleClient(stack.baseUrl).post('/user/login', { email: uniqueEmail(), password: 'wrong password' });
    for (const response of [wrong, unknown]) {
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ message: 'Invalid email or password', errorCode: 'invalidPassword' });
    }
  });

  it('rotates the session on login: the cookie held before stops working', async () => {
    const user = await signUp(stack);
    const before = user.client.jar.clone();
    const login = await user.client.post('/user/login', { email: user.email, password: user.password });
    expect(login.status).toBe(200);
    expect(user.client.jar.get(SESSION_COOKIE)?.value).not.toBe(before.get(SESSION_COOKIE)?.value);
    expect((await user.client.get('/user/self')).status).toBe(200);
    expect((await new ConsoleClient(stack.baseUrl, before).get('/user/self')).status).toBe(401);
  });

  it('logs out by revoking the session and clearing the cookie; other sessions stay', async () => {
    const user = await signUp(stack);
    const otherBrowser = new ConsoleClient(stack.baseUrl);
    expect((await otherBrowser.post('/user/login', { email: user.email, password: user.password })).status).toBe(200);
    const stale = user.client.jar.clone();

    const logout = await user.client.post('/user/logout');
    expect(logout.status).toBe(200);
    expect(user.client.jar.get(SESSION_COOKIE)).toBeUndefined();
    expect((await new ConsoleClient(stack.baseUrl, stale).get('/user/self')).status).toBe(401);
    expect((await otherBrowser.get('/user/self')).status).toBe(200);
  });

  it('limits login attempts per email and says when to retry', async () => {
    const user = await signUp(stack);
    const client = new ConsoleClient(stack.baseUrl);
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect((await client.post('/user/login', { email: user.email, password: 'guess' })).status).toBe(400);
    }
    const limited = await client.post('/user/login', { email: user.email, password: user.password });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ errorCode: 'tooManyRequests', retryAfterSeconds: expect.any(Number) });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(client.jar.get(SESSION_COOKIE)).toBeUndefined();
  });
});

describe('the signed-in user', () => {
  it('updates name, theme and locale', async () => {
    const user = await signUp(stack);
    const updated = await user.client.put('/user/self', { name: 'Grace', theme: 'dark', locale: 'fr' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Grace', theme: 'dark', locale: 'fr', email: user.email });
  });

  it('lists organizations and switches the active one, only to organizations it belongs to', async () => {
    const user = await signUp(stack);
    const created = await user.client.post('/organizations', { name: 'Second org' });
    expect(created.status).toBe(201);
    expect((await user.client.get('/user/self')).body.activeOrganizationId).toBe(created.body.id);

    const list = await user.client.get('/user/self/organizations');
    expect(list.body.organizations).toEqual([
      { id: user.organizationId, name: 'Test User\'s organization' },
      { id: created.body.id, name: 'Second org' },
    ]);

    expect((await user.client.put('/user/self/active-organization', { activeOrganizationId: user.organizationId })).body).toEqual({ success: true });
    expect((await user.client.get('/organizations/self')).body.id).toBe(user.organizationId);

    const stranger = await signUp(stack);
    const foreign = await user.client.put('/user/self/active-organization', { activeOrganizationId: stranger.organizationId });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: 'Organization not found' });
  });

  it('deletes the account with the organizations it was alone in', async () => {
    const user = await signUp(stack);
    const deleted = await user.client.delete('/user/self');
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true });
    expect(await User.query(stack.db).findById(user.userId)).toBeUndefined();
    expect(await Organization.query(stack.db).findById(user.organizationId)).toBeUndefined();
    expect((await user.client.get('/user/self')).status).toBe(401);
  });

  it('records marketing consent and answers a null support-chat token when none is configured', async () => {
    const user = await signUp(stack);
    expect((await user.client.post('/user/self/set-email-marketing-consent', { emailConsent: true })).body).toEqual({ success: true });
    expect(await User.query(stack.db).findById(user.userId)).toMatchObject({ marketingConsent: true });
    expect((await user.client.get('/user/self/intercom-token')).body).toEqual({ token: null });

    const configured = createAccountServices({
      db: stack.db,
      secrets: createSecretBox('test'),
      supportChatSecret: 'chat-secret',
      limits: createTierLimitGuard({ mode: 'off' }),
      referrals: stack.services.referrals,
    });
    expect(configured.accounts.supportChatToken(user.userId)).toBe(createHmac('sha256', 'chat-secret').update(user.userId).digest('hex'));
  });
});

describe('password reset', () => {
  it('answers the same for unknown emails and sends nothing', async () => {
    const client = new ConsoleClient(stack.baseUrl);
    const email = uniqueEmail('nobody');
    const started = await client.post('/user/forgot-password/start', { email });
    expect(started.status).toBe(200);
    expect(started.body).toEqual({ success: true, emailDelivery: 'outbox' });
    expect(await OutboxMessage.query(stack.db).where({ recipient: email })).toEqual([]);
    const update = await client.post('/user/forgot-password/update', { email, password: 'new password 1', code: '123456' });
    expect(update.body).toEqual({ message: 'Invalid code', errorCode: 'invalidCode' });
  });

  it('sets a new password with the emailed code, once, and signs out every session', async () => {
    const user = await signUp(stack);
    const client = new ConsoleClient(stack.baseUrl);
    expect((await client.post('/user/forgot-password/start', { email: user.email })).status).toBe(200);
    const code = await latestCode(stack.db, user.email);
    expect(code).toMatch(/^\d{6}$/);

    const wrongCode = code === '000000' ? '111111' : '000000';
    const wrong = await client.post('/user/forgot-password/update', { email: user.email, password: 'brand new password', code: wrongCode });
    expect(wrong.body).toEqual({ message: 'Invalid code', errorCode: 'invalidCode' });

    const reset = await client.post('/user/forgot-password/update', { email: user.email, password: 'brand new password', code });
    expect(reset.status).toBe(200);
    expect((await user.client.get('/user/self')).status).toBe(401);

    const reused = await client.post('/user/forgot-password/update', { email: user.email, password: 'another new password', code });
    expect(reused.body.errorCode).toBe('invalidCode');

    expect((await client.post('/user/login', { email: user.email, password: user.password })).body.errorCode).toBe('invalidPassword');
    expect((await client.post('/user/login', { email: user.email, password: 'brand new password' })).status).toBe(200);
  });

  it('answers codeExpired for the right code too late', async () => {
    const user = await signUp(stack);
    const client = new ConsoleClient(stack.baseUrl);
    await client.post('/user/forgot-password/start', { email: user.email });
    const code = await latestCode(stack.db, user.email);
    await VerificationCode.query(stack.db).where({ userId: user.userId }).patch({ expiresAt: new Date(Date.now() - 1000) });
    const late = await client.post('/user/forgot-password/update', { email: user.email, password: 'too late password', code });
    expect(late.status).toBe(400);
    expect(late.body).toEqual({ message: 'The code has expired', errorCode: 'codeExpired' });
  });

  it('burns a code after five wrong guesses', async () => {
    const user = await signUp(stack);
    const client = new ConsoleClient(stack.baseUrl);
    await client.post('/user/forgot-password/start', { email: user.email });
    const code = await latestCode(stack.db, user.email);
    const wrongCode = code === '999999' ? '888888' : '999999';
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await client.post('/user/forgot-password/update', { email: user.email, password: 'guessing password', code: wrongCode });
    }
    const right = await client.post('/user/forgot-password/update', { email: user.email, password: 'guessing password', code });
    expect(right.body.errorCode).toBe('invalidCode');
  });

  it('limits how often a reset can be started for one email', async () => {
    const user = await signUp(stack);
    const client = new ConsoleClient(stack.baseUrl);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect((await client.post('/user/forgot-password/start', { email: user.email })).status).toBe(200);
    }
    const limited = await client.post('/user/forgot-password/start', { email: user.email });
    expect(limited.status).toBe(429);
    expect(limited.body.errorCode).toBe('tooManyRequests');
  });
});

describe('email and phone verification', () => {
  it('verifies the email with the code sent to it, throttling resends', async () => {
    const user = await signUp(stack);
    const started = await user.client.post('/user/self/email-verification/start');
    expect(started.status).toBe(200);
    expect(started.body).toEqual({ success: true, nextResendTime: expect.any(String), emailDelivery: 'outbox' });
    expect(Date.parse(started.body.nextResendTime)).toBeGreaterThan(Date.now());

    const again = await user.client.post('/user/self/email-verification/start');
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: expect.stringMatching(/^A code was sent a moment ago: you can ask for another in [0-9]+ seconds?$/), errorCode: 'tooEarly', nextResendTime: started.body.nextResendTime });

    const wrong = await user.client.post('/user/self/email-verification/complete', { verificationCode: 'nope' });
    expect(wrong.body).toEqual({ message: 'Invalid verification code', errorCode: 'invalidVerificationCode' });

    const code = await latestCode(stack.db, user.email);
    const completed = await user.client.post('/user/self/email-verification/complete', { verificationCode: code });
    expect(completed.body).toEqual({ success: true, allVerified: false });
    expect((await user.client.get('/user/self')).body.isVerified).toBe(true);

    expect((await user.client.post('/user/self/email-verification/start')).body.errorCode).toBe('emailAlreadyVerified');
    expect((await user.client.post('/user/self/email-verification/complete', { verificationCode: code })).body.errorCode).toBe(
      'emailAlreadyVerified',
    );
  });

  it('answers invalidEmail for an account without an email address', async () => {
    const tenant = await stack.createTenant();
    const session = await stack.services.sessions.create({ userId: tenant.userId });
    const client = new ConsoleClient(stack.baseUrl);
    client.jar.store(new Response(null, { headers: { 'set-cookie': `${SESSION_COOKIE}=${session.token}; Path=/api` } }));
    const started = await client.post('/user/self/email-verification/start');
    expect(started.status).toBe(400);
    expect(started.body.errorCode).toBe('invalidEmail');
  });

  it('verifies a phone number, and lists verified contacts', async () => {
    const user = await signUp(stack);
    const invalid = await user.client.post('/user/self/phone-verification/start', { phoneNumber: '555-0100' });
    expect(invalid.body.errorCode).toBe('invalidPhoneNumber');

    const phoneNumber = '+14155550123';
    const started = await user.client.post('/user/self/phone-verification/start', { phoneNumber });
    expect(started.body).toEqual({ success: true, nextResendTime: expect.any(String) });
    const tooEarly = await user.client.post('/user/self/phone-verification/start', { phoneNumber });
    expect(tooEarly.body).toMatchObject({ errorCode: 'tooEarly', nextResendTime: started.body.nextResendTime });

    const code = await latestCode(stack.db, phoneNumber);
    const otherNumber = await user.client.post('/user/self/phone-verification/complete', { verificationCode: code, phoneNumber: '+14155550999' });
    expect(otherNumber.body.errorCode).toBe('invalidVerificationCode');

    await user.client.post('/user/self/email-verification/start');
    await user.client.post('/user/self/email-verification/complete', { verificationCode: await latestCode(stack.db, user.email) });

    // The wrong number above counted as a wrong guess, not as the code's use.
    const completed = await user.client.post('/user/self/phone-verification/complete', { verificationCode: code, phoneNumber });
    expect(completed.body).toEqual({ success: true, allVerified: true });
    expect((await user.client.post('/user/self/phone-verification/start', { phoneNumber })).body.errorCode).toBe('phoneAlreadyVerified');
    expect((await user.client.post('/user/self/phone-verification/complete', { verificationCode: code, phoneNumber })).body.errorCode).toBe(
      'phoneAlreadyVerified',
    );
    expect((await user.client.get('/user/self/verified-contacts')).body).toEqual({ email: user.email, phone: phoneNumber });
  });
});

describe('onboarding', () => {
  it('claims steps one at a time, pauses, unpauses and completes', async () => {
    const user = await signUp(stack);
    expect((await user.client.put('/user/self/onboarding/claim', { onboardingStep: 'about_credits' })).body).toEqual({ success: true });
    await user.client.put('/user/self/onboarding/claim', { onboardingStep: 'create_template', stepToClaim: 'about_credits' });
    await user.client.put('/user/self/onboarding/claim', { onboardingStep: 'create_template', stepToClaim: 'about_credits' });
    expect((await user.client.get('/user/self')).body.onboardingStatus).toEqual({
      claimedSteps: ['about_credits'],
      completedSteps: ['about_credits'],
      currentStep: 'create_template',
      pausedAt: null,
    });

    await user.client.post('/user/self/onboarding/pause');
    expect((await user.client.get('/user/self')).body.onboardingStatus.pausedAt).toEqual(expect.any(String));
    await user.client.post('/user/self/onboarding/unpause');
    expect((await user.client.get('/user/self')).body.onboardingStatus.pausedAt).toBeNull();

    const invalid = await user.client.put('/user/self/onboarding/claim', { onboardingStep: 'not_a_step' });
    expect(invalid.body.errorCode).toBe('validation');

    const done = await user.client.post('/user/self/onboarded', { reasons: ['work'], useCases: ['support'], emailConsent: false });
    expect(done.body).toEqual({ success: true });
    expect((await user.client.get('/user/self')).body.hasOnboarded).toBe(true);
    expect(await User.query(stack.db).findById(user.userId)).toMatchObject({ onboardingAnswers: { reasons: ['work'], useCases: ['support'] } });
  });
});
