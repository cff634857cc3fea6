import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@sa/db';
import { DomainError } from '@sa/errors';
// Test-only dependency; the module-boundary rule does not tell tests from library code.
import { createTestDatabase } from '@sa/testing';
import { Actor, cliActor } from './audit-log';
import { PeopleAdmin, WorkspaceActor } from './people-admin';
import { sha256Hex } from './secrets';

// PeopleAdmin against a fresh migrated database, connected as the console's own role (sa_console).

const PASSWORD = 'correct horse battery staple';
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let adminDs: DataSource;
let people: PeopleAdmin;
const cli: Actor = cliActor('tester');

const email = () => `p-${randomUUID().slice(0, 8)}@example.com`;

async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'ok',
    (e: unknown) => (e instanceof DomainError ? e.code : `not a DomainError: ${String(e)}`),
  );
}

const as = (personId: string, label: string, role: WorkspaceActor['role']): WorkspaceActor => ({ actor: { kind: 'person', id: personId, label }, role });

beforeAll(async () => {
  db = await createTestDatabase('sa_people');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('console'), applicationName: 'people-int', poolSize: 6 })).initialize();
  adminDs = await new DataSource(dataSourceOptions({ url: db.url, applicationName: 'people-int-admin', poolSize: 2 })).initialize();
  people = new PeopleAdmin(ds, { sessionIdleSeconds: 600, sessionAbsoluteSeconds: 3600, invitationTtlSeconds: 3600, passwordResetTtlSeconds: 600 });
});

afterAll(async () => {
  await ds?.destroy();
  await adminDs?.destroy();
  await db?.drop();
});

describe('PeopleAdmin (schema people, as sa_console)', () => {
  it('creates a person with an argon2id hash (never the password), finds them case-insensitively and authenticates', async () => {
    const ws = randomUUID();
    const who = email().toUpperCase();
    const { person, created } = await people.createUser({ email: who, password: PASSWORD, displayName: 'Pat', workspaceId: ws, role: 'owner' }, cli);
    expect(created).toBe(true);
    expect(person.email).toBe(who.toLowerCase());
    expect(person.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect((await people.authenticate(who.toLowerCase(), PASSWORD))?.id).toBe(person.id);
    expect(await people.authenticate(who, 'wrong password here')).toBeNull();
    expect(await people.authenticate('nobody@example.com', PASSWORD)).toBeNull();
    expect(await people.roleIn(person.id, ws)).toBe('owner');
    expect(await codeOf(people.createUser({ email: 'not-an-email', password: PASSWORD, workspaceId: ws, role: 'member' }, cli))).toBe('validation_failed');
    expect(await codeOf(people.createUser({ email: email(), password: 'short', workspaceId: ws, role: 'member' }, cli))).toBe('validation_failed');
  });

  it('keeps only the SHA-256 of a session id; idle and absolute expiry end a session; sign out everywhere ends all', async () => {
    const { person } = await people.createUser({ email: email(), password: PASSWORD, workspaceId: randomUUID(), role: 'member' }, cli);
    const a = await people.createSession(person.id);
    const b = await people.createSession(person.id);
    expect(a.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [row] = await adminDs.query(`SELECT token_hash FROM people.sessions WHERE id = $1`, [a.session.id]);
    expect(row.token_hash).toBe(sha256Hex(a.secret));
    expect((await people.resolveSession(a.secret))?.person.id).toBe(person.id);
    expect(await people.resolveSession('x'.repeat(43))).toBeNull();
    expect(await people.resolveSession(undefined)).toBeNull();

    // Idle: last use 11 minutes ago (idle limit 10).
    await adminDs.query(`UPDATE people.sessions SET last_seen_at = now() - interval '11 minutes' WHERE id = $1`, [a.session.id]);
    expect(await people.resolveSession(a.secret)).toBeNull();
    expect(await adminDs.query(`SELECT 1 FROM people.sessions WHERE id = $1`, [a.session.id])).toHaveLength(0);
    // A use moves the idle expiry (written at most once a minute).
    await adminDs.query(`UPDATE people.sessions SET last_seen_at = now() - interval '9 minutes' WHERE id = $1`, [b.session.id]);
    const touched = await people.resolveSession(b.secret);
    expect(touched!.session.last_seen_at.getTime()).toBeGreaterThan(Date.now() - 5000);
    // Absolute: used just now but past its absolute expiry.
    await adminDs.query(`UPDATE people.sessions SET absolute_expires_at = now() - interval '1 second' WHERE id = $1`, [b.session.id]);
    expect(await people.resolveSession(b.secret)).toBeNull();

    const c = await people.createSession(person.id);
    const d = await people.createSession(person.id);
    expect(await people.endAllSessions(person.id, c.session.id)).toBe(1);
    expect(await people.resolveSession(d.secret)).toBeNull();
    expect(await people.resolveSession(c.secret)).not.toBeNull();
    expect(await people.endAllSessions(person.id)).toBe(1);
    expect(await people.resolveSession(c.secret)).toBeNull();
  });

  it('applies the role rules and keeps the last owner, also when two owners step down at once', async () => {
    const ws = randomUUID();
    const o1 = (await people.createUser({ email: email(), password: PASSWORD, workspaceId: ws, role: 'owner' }, cli)).person;
    const o2 = (await people.createUser({ email: email(), password: PASSWORD, workspaceId: ws, role: 'owner' }, cli)).person;
    const ad = (await people.createUser({ email: email(), password: PASSWORD, workspaceId: ws, role: 'admin' }, cli)).person;
    const me = (await people.createUser({ email: email(), password: PASSWORD, workspaceId: ws, role: 'member' }, cli)).person;

    expect(await codeOf(people.changeRole(ws, as(me.id, me.email, 'member'), me.id, 'admin'))).toBe('forbidden_role');
    expect(await codeOf(people.changeRole(ws, as(ad.id, ad.email, 'admin'), me.id, 'owner'))).toBe('forbidden_role');
    expect(await codeOf(people.removeMember(ws, as(ad.id, ad.email, 'admin'), o1.id))).toBe('forbidden_role');
    expect((await people.changeRole(ws, as(ad.id, ad.email, 'admin'), me.id, 'admin')).role).toBe('admin');
    expect(await codeOf(people.changeRole(ws, as(ad.id, ad.email, 'admin'), randomUUID(), 'member'))).toBe('not_found');

    // Both owners demote themselves at the same moment: exactly one succeeds.
    const results = await Promise.all([
      codeOf(people.changeRole(ws, as(o1.id, o1.email, 'owner'), o1.id, 'admin')),
      codeOf(people.changeRole(ws, as(o2.id, o2.email, 'owner'), o2.id, 'admin')),
    ]);
    expect(results.sort()).toEqual(['last_owner', 'ok']);
    const [{ n }] = await adminDs.query(`SELECT count(*)::int AS n FROM people.memberships WHERE workspace_id = $1 AND role = 'owner'`, [ws]);
    expect(n).toBe(1);
    const lastOwner = (await people.listMembers(ws)).find((m) => m.role === 'owner')!;
    expect(await codeOf(people.removeMember(ws, as(lastOwner.person_id, lastOwner.email, 'owner'), lastOwner.person_id))).toBe('last_owner');
    // A member may leave.
    await people.removeMember(ws, as(me.id, me.email, 'admin'), me.id);
    expect(await people.roleIn(me.id, ws)).toBeNull();
    const actions = (await people.audit.list(ws, { limit: 50 })).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['member.role_changed', 'member.left', 'member.added']));
  });

  it('invitations: single use, expiring, replace an open one; a new person sets a password, an existing one proves theirs', async () => {
    const ws = randomUUID();
    const o = (await people.createUser({ email: email(), password: PASSWORD, workspaceId: ws, role: 'owner' }, cli)).person;
    const owner = as(o.id, o.email, 'owner');
    const newcomer = email();
    const first = await people.createInvitation(ws, owner, newcomer, 'member');
    const second = await people.createInvitation(ws, owner, newcomer, 'admin');
    expect(await people.findInvitation(first.token)).toBeNull();
    expect((await people.listInvitations(ws)).map((i) => [i.email, i.role])).toEqual([[newcomer, 'admin']]);
    const [stored] = await adminDs.query(`SELECT token_hash FROM people.invitations WHERE id = $1`, [second.invitation.id]);
    expect(stored.token_hash).toBe(sha256Hex(second.token));

    expect(await codeOf(people.acceptInvitation(second.token, 'short'))).toBe('validation_failed');
    const accepted = await people.acceptInvitation(second.token, PASSWORD, '  Neo  ');
    expect(accepted).toMatchObject({ workspaceId: ws, role: 'admin', person: { email: newcomer, display_name: 'Neo' } });
    expect(await codeOf(people.acceptInvitation(second.token, PASSWORD))).toBe('invalid_token');
    expect(await codeOf(people.createInvitation(ws, owner, newcomer, 'member'))).toBe('conflict');
    expect(await codeOf(people.createInvitation(ws, as(accepted.person.id, newcomer, 'admin'), email(), 'owner'))).toBe('forbidden_role');

    // An existing person invited to another workspace: their own password, else 401.
    const ws2 = randomUUID();
    const inv = await people.createInvitation(ws2, { actor: cli, role: 'owner' }, newcomer, 'member');
    expect((await people.findInvitation(inv.token))?.hasAccount).toBe(true);
    expect(await codeOf(people.acceptInvitation(inv.token, 'someone else password'))).toBe('invalid_credentials');
    expect((await people.acceptInvitation(inv.token, PASSWORD)).person.id).toBe(accepted.person.id);

    // Expired.
    const late = await people.createInvitation(ws, owner, email(), 'member');
    await adminDs.query(`UPDATE people.invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [late.invitation.id]);
    expect(await people.findInvitation(late.token)).toBeNull();
    expect(await codeOf(people.acceptInvitation(late.token, PASSWORD))).toBe('invalid_token');

    // A failed delivery creates nothing.
    const undelivered = email();
    await expect(people.createInvitation(ws, owner, undelivered, 'member', async () => Promise.reject(new Error('mail down')))).rejects.toThrow('mail down');
    expect((await people.listInvitations(ws)).some((i) => i.email === undelivered)).toBe(false);
  });

  it('password resets: nothing for an unknown address, at most 3 open links, single use, expiring; ends every session', async () => {
    const ws = randomUUID();
    const p = (await people.createUser({ email: email(), password: PASSWORD, workspaceId: ws, role: 'member' }, cli)).person;
    expect(await people.createPasswordReset('nobody@example.com')).toBeNull();
    const links = [await people.createPasswordReset(p.email), await people.createPasswordReset(p.email), await people.createPasswordReset(p.email)];
    expect(links.every((l) => l !== null)).toBe(true);
    expect(await people.createPasswordReset(p.email)).toBeNull();
    const session = await people.createSession(p.id);

    await adminDs.query(`UPDATE people.password_resets SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [sha256Hex(links[0]!.token)]);
    expect(await codeOf(people.confirmPasswordReset(links[0]!.token, 'a new long password'))).toBe('invalid_token');
    expect(await codeOf(people.confirmPasswordReset(links[1]!.token, 'short'))).toBe('validation_failed');
    await people.confirmPasswordReset(links[1]!.token, 'a new long password');
    expect(await people.resolveSession(session.secret)).toBeNull();
    expect(await people.authenticate(p.email, 'a new long password')).not.toBeNull();
    expect(await people.authenticate(p.email, PASSWORD)).toBeNull();
    // Every other open link was used up with it.
    expect(await codeOf(people.confirmPasswordReset(links[2]!.token, 'yet another long one'))).toBe('invalid_token');
    expect(await codeOf(people.confirmPasswordReset(links[1]!.token, 'yet another long one'))).toBe('invalid_token');
  });

  it('the audit log: newest first, paged with before, per workspace, secret-like details dropped', async () => {
    const ws = randomUUID();
    for (let i = 0; i < 5; i++) await people.audit.record({ workspaceId: ws, actor: cli, action: `thing.done`, targetKind: 'thing', targetId: String(i), details: { n: i, secret: 'whsec_x', token: 'sa_x', token_id: 'kept' } });
    await people.audit.record({ workspaceId: randomUUID(), actor: cli, action: 'elsewhere', targetKind: 'thing', targetId: null });
    const page1 = await people.audit.list(ws, { limit: 3 });
    expect(page1.map((e) => e.target_id)).toEqual(['4', '3', '2']);
    const page2 = await people.audit.list(ws, { limit: 3, before: page1[2].id });
    expect(page2.map((e) => e.target_id)).toEqual(['1', '0']);
    expect(page1[0]).toMatchObject({ actor: { kind: 'cli', id: null, label: 'cli:tester' }, details: { n: 4, token_id: 'kept' } });
    expect(page1[0].details).not.toHaveProperty('secret');
    expect(page1[0].details).not.toHaveProperty('token');
  });

  it('sa_console may not read another schema', async () => {
    await expect(ds.query('SELECT 1 FROM identity.workspaces LIMIT 1')).rejects.toThrow(/permission denied/);
  });
});
