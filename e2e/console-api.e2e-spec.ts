import { randomBytes } from 'node:crypto';
import { admin, createUser, runAdmin } from './support/admin';
import { ConsoleClient, EmailTap, tokenOfLink } from './support/console';
import { uniqueName } from './support/fixtures';
import { e2eState } from './support/state';

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const email = (who: string) => `${who}-${randomBytes(4).toString('hex')}@example.com`;
const PASSWORD = 'correct horse battery staple';

function expectSecurityHeaders(headers: Headers): void {
  expect({
    csp: headers.get('content-security-policy'),
    nosniff: headers.get('x-content-type-options'),
    referrer: headers.get('referrer-policy'),
    frame: headers.get('x-frame-options'),
  }).toEqual({ csp: CSP, nosniff: 'nosniff', referrer: 'no-referrer', frame: 'DENY' });
}

describe('console API (people, sessions, members, invitations)', () => {
  let tap: EmailTap;
  let ws1: { id: string; name: string };
  let ws2: { id: string; name: string };
  let owner: { id: string; email: string };
  let owner2: { id: string; email: string };

  beforeAll(async () => {
    tap = await EmailTap.start();
    ws1 = await admin<{ id: string; name: string }>(['workspace', 'create', '--name', uniqueName('Console'), '--plan', 'growth']);
    ws2 = await admin<{ id: string; name: string }>(['workspace', 'create', '--name', uniqueName('Other'), '--plan', 'growth']);
    const ownerEmail = email('Owner');
    const created = await createUser(ws1.id, ownerEmail, 'owner', PASSWORD, 'Olga Owner');
    owner = { id: created.id, email: ownerEmail.toLowerCase() };
    const o2 = email('owner2');
    owner2 = { id: (await createUser(ws2.id, o2, 'owner', PASSWORD)).id, email: o2 };
  });

  afterAll(async () => {
    await tap.stop();
  });

  it('bootstraps an owner with the admin CLI: JSON with the person id; the password only from standard input; an audit row by cli', async () => {
    const again = await createUser(ws1.id, owner.email.toUpperCase(), 'owner', PASSWORD);
    expect(again).toEqual({ id: owner.id, email: owner.email, workspace_id: ws1.id, role: 'owner' });
    const noStdin = await runAdmin(['user', 'create', '--workspace', ws1.id, '--email', email('x'), '--role', 'owner']);
    expect(noStdin.code).toBe(2);
    expect(noStdin.stderr).toContain('--password-stdin is required');
    const short = await runAdmin(['user', 'create', '--workspace', ws1.id, '--email', email('x'), '--role', 'owner', '--password-stdin'], undefined, undefined, 'short\n');
    expect([short.code, short.stderr]).toEqual([1, expect.stringContaining('12 to 256 characters')]);
    const badRole = await runAdmin(['user', 'create', '--workspace', ws1.id, '--email', email('x'), '--role', 'boss', '--password-stdin'], undefined, undefined, `${PASSWORD}\n`);
    expect(badRole.code).toBe(2);

    const c = new ConsoleClient();
    expect((await c.signIn(owner.email, PASSWORD)).status).toBe(200);
    const audit = await c.get(`/api/workspaces/${ws1.id}/audit?limit=50`);
    expect(audit.status).toBe(200);
    const actions = audit.body.data.map((e: any) => `${e.actor.kind}:${e.action}`);
    expect(actions).toEqual(expect.arrayContaining(['cli:workspace.created', 'cli:person.created', 'cli:member.added', 'cli:person.password_set']));
    const added = audit.body.data.find((e: any) => e.action === 'member.added');
    expect(added).toMatchObject({ actor: { kind: 'cli', id: null, label: expect.stringMatching(/^cli:/) }, target_kind: 'member', target_id: owner.id, details: { email: owner.email, role: 'owner' } });
    expect(JSON.stringify(audit.body)).not.toContain(PASSWORD);
  });

  it('signs in with a session cookie (httpOnly, SameSite=Lax, Path=/), answers the session, and refuses wrong credentials alike', async () => {
    const c = new ConsoleClient();
    expect((await c.get('/api/session')).body).toMatchObject({ code: 'not_signed_in' });
    const wrong = await c.signIn(owner.email, 'not the password at all');
    const unknown = await c.signIn(email('nobody'), 'not the password at all');
    expect([wrong.status, wrong.body]).toEqual([401, { error: 'Unauthorized', code: 'invalid_credentials', message: expect.any(String) }]);
    expect([unknown.status, unknown.body]).toEqual([wrong.status, wrong.body]);

    const ok = await c.signIn(owner.email.toUpperCase(), PASSWORD);
    expect(ok.status).toBe(200);
    expect(c.lastSetCookie).toMatch(/^sa_console_session=[A-Za-z0-9_-]{43};/);
    expect(c.lastSetCookie).toMatch(/HttpOnly/i);
    expect(c.lastSetCookie).toMatch(/SameSite=Lax/i);
    expect(c.lastSetCookie).toMatch(/Path=\//);
    expect(c.lastSetCookie).not.toMatch(/Secure/i);
    expect(ok.body).toEqual({
      person: { id: owner.id, email: owner.email, display_name: 'Olga Owner' },
      workspaces: [{ id: ws1.id, name: ws1.name, role: 'owner' }],
      csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expires_at: expect.any(String),
    });
    const session = await c.get('/api/session');
    expect(session.status).toBe(200);
    expect(session.body.csrf_token).toBe(ok.body.csrf_token);
    expectSecurityHeaders(session.headers);
    expect(session.headers.get('cache-control')).toBe('no-store');
  });

  it('rotates the session at every sign-in: a new cookie, the old one ended', async () => {
    const c = new ConsoleClient();
    await c.signIn(owner.email, PASSWORD);
    const first = c.cookie!;
    const firstCsrf = c.csrf;
    await c.signIn(owner.email, PASSWORD);
    expect(c.cookie).not.toBe(first);
    expect(c.csrf).not.toBe(firstCsrf);
    const old = new ConsoleClient();
    old.cookie = first;
    expect((await old.get('/api/session')).status).toBe(401);
    expect((await c.get('/api/session')).status).toBe(200);
  });

  it('signs out (this session) and signs out everywhere (every session of the person)', async () => {
    const a = new ConsoleClient();
    const b = new ConsoleClient();
    const d = new ConsoleClient();
    await a.signIn(owner.email, PASSWORD);
    await b.signIn(owner.email, PASSWORD);
    await d.signIn(owner.email, PASSWORD);
    expect((await d.delete('/api/session')).status).toBe(204);
    expect(d.cookie).toBeNull();
    expect((await b.get('/api/session')).status).toBe(200);
    const out = await a.post('/api/session/sign-out-everywhere');
    expect(out.status).toBe(204);
    expect((await a.get('/api/session')).status).toBe(401);
    expect((await b.get('/api/session')).status).toBe(401);
  });

  it('refuses writes without the CSRF token or from another origin with 403 csrf_failed', async () => {
    const c = new ConsoleClient();
    await c.signIn(owner.email, PASSWORD);
    const invite = { email: email('csrf'), role: 'member' };
    const path = `/api/workspaces/${ws1.id}/invitations`;
    const refusals = [
      await c.request('POST', path, invite, { csrf: null }),
      await c.request('POST', path, invite, { csrf: 'A'.repeat(43) }),
      await c.request('POST', path, invite, { origin: 'https://evil.example' }),
      await c.request('POST', path, invite, { origin: null }),
      await c.request('POST', path, invite, { origin: null, headers: { 'sec-fetch-site': 'cross-site' } }),
      await c.request('DELETE', '/api/session', undefined, { origin: 'http://127.0.0.1:1' }),
      // Sign-in has no session yet: the Origin check still applies.
      await new ConsoleClient().request('POST', '/api/session', { email: owner.email, password: PASSWORD }, { origin: 'https://evil.example' }),
    ];
    for (const r of refusals) expect([r.status, r.body.code]).toEqual([403, 'csrf_failed']);
    expect((await c.get(path)).body.data.some((i: any) => i.email === invite.email)).toBe(false);
    // Without Origin, a same-origin Sec-Fetch-Site passes.
    const same = await c.request('POST', path, invite, { origin: null, headers: { 'sec-fetch-site': 'same-origin' } });
    expect(same.status).toBe(201);
  });

  it('throttles failed sign-ins per account: past the free five, 429 too_many_attempts with Retry-After (the first delay), even for the right password', async () => {
    const who = email('throttled');
    await createUser(ws1.id, who, 'member', PASSWORD);
    const c = new ConsoleClient();
    for (let i = 0; i < 5; i++) expect((await c.signIn(who, `wrong password ${i}!`)).status).toBe(401);
    const refused = await c.signIn(who, PASSWORD);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'too_many_attempts', retry_after: expect.any(Number) });
    // The first delay (CONSOLE_SIGNIN_DELAY_SECONDS, 60 s in these tests), not a lockout for the whole window.
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(50);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(refused.body.retry_after).toBe(Number(refused.headers.get('retry-after')));
    // Another account from the same address is not affected.
    expect((await new ConsoleClient().signIn(owner.email, PASSWORD)).status).toBe(200);
  });

  it('invites by e-mail through the mail outbox; the link shows the invitation, signs the new admin in once', async () => {
    const c = new ConsoleClient();
    await c.signIn(owner.email, PASSWORD);
    const who = email('admin');
    const created = await c.post(`/api/workspaces/${ws1.id}/invitations`, { email: who, role: 'admin' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), email: who, role: 'admin', invited_by: owner.email, created_at: expect.any(String), expires_at: expect.any(String) });
    expect(JSON.stringify(created.body)).not.toMatch(/token/);
    const mail = await tap.waitFor(who, 'invitation');
    expect(mail.workspace_id).toBe(ws1.id);
    expect(mail.body_text).toContain(`${e2eState().consoleUrl}/accept-invitation#token=`);
    const token = tokenOfLink(mail.body_text, '/accept-invitation');
    expect((await c.get(`/api/workspaces/${ws1.id}/invitations`)).body.data.map((i: any) => i.email)).toContain(who);

    const visitor = new ConsoleClient();
    const preview = await visitor.get(`/api/invitations/${token}`);
    expect([preview.status, preview.body]).toEqual([200, { email: who, role: 'admin', workspace_name: ws1.name, has_account: false }]);
    expect((await visitor.post('/api/invitations/accept', { token, password: 'short' })).status).toBe(400);
    const accepted = await visitor.post('/api/invitations/accept', { token, password: PASSWORD, display_name: 'Ada Admin' });
    expect(accepted.status).toBe(200);
    expect(accepted.body.person).toMatchObject({ email: who, display_name: 'Ada Admin' });
    expect(accepted.body.workspaces).toEqual([{ id: ws1.id, name: ws1.name, role: 'admin' }]);
    expect(visitor.cookie).not.toBeNull();
    expect((await visitor.get('/api/session')).status).toBe(200);

    const again = await new ConsoleClient().post('/api/invitations/accept', { token, password: PASSWORD });
    expect([again.status, again.body.code]).toEqual([400, 'invalid_token']);
    expect((await new ConsoleClient().get(`/api/invitations/${token}`)).status).toBe(404);
    const members = await c.get(`/api/workspaces/${ws1.id}/members`);
    expect(members.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ email: who, role: 'admin', display_name: 'Ada Admin' })]));
    const audit = (await c.get(`/api/workspaces/${ws1.id}/audit`)).body.data;
    expect(audit.find((e: any) => e.action === 'invitation.accepted' && e.details.email === who)).toMatchObject({ actor: { kind: 'person', label: who } });
    expect(audit.find((e: any) => e.action === 'invitation.created' && e.details.email === who)).toMatchObject({ actor: { kind: 'person', id: owner.id, label: owner.email } });
  });

  describe('roles', () => {
    const adminClient = new ConsoleClient();
    const memberClient = new ConsoleClient();
    let adminId: string;
    let memberId: string;

    beforeAll(async () => {
      const adminEmail = email('role-admin');
      const memberEmail = email('role-member');
      adminId = (await createUser(ws1.id, adminEmail, 'admin', PASSWORD)).id;
      memberId = (await createUser(ws1.id, memberEmail, 'member', PASSWORD)).id;
      await adminClient.signIn(adminEmail, PASSWORD);
      await memberClient.signIn(memberEmail, PASSWORD);
    });

    it("a member reads but every write is refused with 403 forbidden_role", async () => {
      expect((await memberClient.get(`/api/workspaces/${ws1.id}/members`)).status).toBe(200);
      expect((await memberClient.get(`/api/workspaces/${ws1.id}/invitations`)).status).toBe(200);
      expect((await memberClient.get(`/api/workspaces/${ws1.id}/audit`)).status).toBe(200);
      const writes = [
        await memberClient.post(`/api/workspaces/${ws1.id}/invitations`, { email: email('x'), role: 'member' }),
        await memberClient.patch(`/api/workspaces/${ws1.id}/members/${adminId}`, { role: 'member' }),
        await memberClient.delete(`/api/workspaces/${ws1.id}/members/${adminId}`),
        await memberClient.patch(`/api/workspaces/${ws1.id}/members/${memberId}`, { role: 'admin' }),
      ];
      for (const w of writes) expect([w.status, w.body.code]).toEqual([403, 'forbidden_role']);
    });

    it('an admin manages admins and members but not owners', async () => {
      const promote = await adminClient.patch(`/api/workspaces/${ws1.id}/members/${memberId}`, { role: 'admin' });
      expect([promote.status, promote.body.role]).toEqual([200, 'admin']);
      expect((await adminClient.patch(`/api/workspaces/${ws1.id}/members/${memberId}`, { role: 'member' })).body.role).toBe('member');
      for (const r of [
        await adminClient.patch(`/api/workspaces/${ws1.id}/members/${memberId}`, { role: 'owner' }),
        await adminClient.patch(`/api/workspaces/${ws1.id}/members/${owner.id}`, { role: 'member' }),
        await adminClient.delete(`/api/workspaces/${ws1.id}/members/${owner.id}`),
        await adminClient.post(`/api/workspaces/${ws1.id}/invitations`, { email: email('o'), role: 'owner' }),
      ]) {
        expect([r.status, r.body.code]).toEqual([403, 'forbidden_role']);
      }
      const bad = await adminClient.patch(`/api/workspaces/${ws1.id}/members/${memberId}`, { role: 'boss' });
      expect([bad.status, bad.body.success]).toEqual([400, false]);
    });

    it('the last owner can be neither demoted nor removed, nor leave (409 last_owner); a member may leave', async () => {
      const c = new ConsoleClient();
      await c.signIn(owner.email, PASSWORD);
      const demote = await c.patch(`/api/workspaces/${ws1.id}/members/${owner.id}`, { role: 'admin' });
      expect([demote.status, demote.body.code]).toEqual([409, 'last_owner']);
      const leave = await c.delete(`/api/workspaces/${ws1.id}/members/${owner.id}`);
      expect([leave.status, leave.body.code]).toEqual([409, 'last_owner']);
      // With a second owner, the first may step down.
      expect((await c.patch(`/api/workspaces/${ws1.id}/members/${adminId}`, { role: 'owner' })).status).toBe(200);
      expect((await adminClient.patch(`/api/workspaces/${ws1.id}/members/${adminId}`, { role: 'admin' })).status).toBe(200);

      const leaver = email('leaver');
      const leaverId = (await createUser(ws1.id, leaver, 'member', PASSWORD)).id;
      const l = new ConsoleClient();
      await l.signIn(leaver, PASSWORD);
      expect((await l.delete(`/api/workspaces/${ws1.id}/members/${leaverId}`)).status).toBe(204);
      expect((await l.get(`/api/workspaces/${ws1.id}/members`)).status).toBe(404);
    });

    it("another workspace's ids are 404, never 403", async () => {
      const c = new ConsoleClient();
      await c.signIn(owner.email, PASSWORD);
      for (const r of [
        await c.get(`/api/workspaces/${ws2.id}/members`),
        await c.get(`/api/workspaces/${ws2.id}/audit`),
        await c.post(`/api/workspaces/${ws2.id}/invitations`, { email: email('x'), role: 'member' }),
        await c.patch(`/api/workspaces/${ws1.id}/members/${owner2.id}`, { role: 'member' }),
        await c.delete(`/api/workspaces/${ws1.id}/members/${owner2.id}`),
        await c.get('/api/workspaces/not-a-uuid/members'),
      ]) {
        expect([r.status, r.body.code]).toEqual([404, 'not_found']);
      }
      const other = new ConsoleClient();
      await other.signIn(owner2.email, PASSWORD);
      const inv = (await c.post(`/api/workspaces/${ws1.id}/invitations`, { email: email('x'), role: 'member' })).body;
      const del = await other.delete(`/api/workspaces/${ws2.id}/invitations/${inv.id}`);
      expect([del.status, del.body.code]).toEqual([404, 'not_found']);
      expect((await c.delete(`/api/workspaces/${ws1.id}/invitations/${inv.id}`)).status).toBe(204);
    });
  });

  it('resets a password by e-mail (always 202), once; the new password works and every session ends', async () => {
    const who = email('forgetful');
    await createUser(ws1.id, who, 'member', PASSWORD);
    const before = new ConsoleClient();
    await before.signIn(who, PASSWORD);
    const anon = new ConsoleClient();
    const unknown = await anon.post('/api/password-resets', { email: email('nobody') });
    const known = await anon.post('/api/password-resets', { email: who });
    expect([unknown.status, unknown.body]).toEqual([202, {}]);
    expect([known.status, known.body]).toEqual([202, {}]);
    const mail = await tap.waitFor(who, 'password_reset');
    expect(mail.body_text).toContain(`${e2eState().consoleUrl}/reset-password#token=`);
    const token = tokenOfLink(mail.body_text, '/reset-password');

    expect((await anon.post('/api/password-resets/confirm', { token, password: 'too short' })).status).toBe(400);
    const newPassword = 'a brand new long password';
    expect((await anon.post('/api/password-resets/confirm', { token, password: newPassword })).status).toBe(204);
    const reused = await anon.post('/api/password-resets/confirm', { token, password: newPassword });
    expect([reused.status, reused.body.code]).toEqual([400, 'invalid_token']);
    expect((await before.get('/api/session')).status).toBe(401);
    expect((await new ConsoleClient().signIn(who, PASSWORD)).status).toBe(401);
    expect((await new ConsoleClient().signIn(who, newPassword)).status).toBe(200);
    // No e-mail for an unknown address.
    await new Promise((r) => setTimeout(r, 300));
    expect(tap.emails.filter((e) => e.kind === 'password_reset' && e.to.startsWith('nobody-'))).toEqual([]);
  });

  it('sends at most a few reset e-mails to one address an hour, answering 202 all the same', async () => {
    const who = email('flooded');
    await createUser(ws1.id, who, 'member', PASSWORD);
    const anon = new ConsoleClient();
    const answers: number[] = [];
    for (let i = 0; i < 5; i++) answers.push((await anon.post('/api/password-resets', { email: who })).status);
    expect(answers).toEqual([202, 202, 202, 202, 202]);
    await tap.waitFor(who, 'password_reset');
    await new Promise((r) => setTimeout(r, 500));
    // CONSOLE_PASSWORD_RESET_MAX_PER_ACCOUNT (3 by default).
    expect(tap.emails.filter((e) => e.kind === 'password_reset' && e.to === who)).toHaveLength(3);
  });

  it('puts the security headers on API answers, the web application and 404s; the API is no-store', async () => {
    const c = new ConsoleClient();
    const page = await c.get('/w/00000000-0000-4000-8000-000000000000/tokens');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expectSecurityHeaders(page.headers);
    const root = await c.get('/');
    expect(root.status).toBe(200);
    expectSecurityHeaders(root.headers);
    const apiMissing = await c.get('/api/no-such-thing');
    expect([apiMissing.status, apiMissing.body.code]).toEqual([404, 'not_found']);
    expectSecurityHeaders(apiMissing.headers);
    expect(apiMissing.headers.get('cache-control')).toBe('no-store');
    const fileMissing = await c.get('/no-such-file.js');
    expect(fileMissing.status).toBe(404);
    expectSecurityHeaders(fileMissing.headers);
    const postMissing = await c.post('/api/nothing-here', {});
    expect(postMissing.status).toBe(404);
    expectSecurityHeaders(postMissing.headers);
    const bad = await c.request('POST', '/api/session', undefined, { headers: { 'content-type': 'text/plain' } });
    expect(bad.status).toBe(400);
    expectSecurityHeaders(bad.headers);
  });
});
