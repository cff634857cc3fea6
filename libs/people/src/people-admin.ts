import type { DataSource, EntityManager } from 'typeorm';
import { isEmail } from 'class-validator';
import { InvitationView, MemberView, PASSWORD_MAX, PASSWORD_MIN, PERSON_EMAIL_MAX, Role } from '@sa/contracts';
import { SqlRunner, isUniqueViolation, queryRows } from '@sa/db';
import { DomainError, NotFound, ValidationFailed } from '@sa/errors';
import { Actor, AuditLog } from './audit-log';
import { ForbiddenRole, InvalidCredentials, InvalidToken, LastOwner } from './errors';
import { hashPassword, verifyPassword } from './passwords';
import { MembershipChange, losesLastOwner, mayManageRole, refusalOf } from './roles';
import { isWellFormedSecret, normalizeEmail, randomSecret, sha256Hex } from './secrets';

export interface PeopleOptions {
  /** A session unused for this long ends. */
  sessionIdleSeconds: number;
  /** A session ends this long after sign-in, used or not. */
  sessionAbsoluteSeconds: number;
  invitationTtlSeconds: number;
  passwordResetTtlSeconds: number;
  /** Open (unused, unexpired) reset links a person may have; further requests send nothing. */
  passwordResetsMaxOpen?: number;
}

export interface PersonRow {
  id: string;
  email: string;
  display_name: string;
  password_hash: string | null;
}

export interface SessionRow {
  id: string;
  person_id: string;
  created_at: Date;
  last_seen_at: Date;
  absolute_expires_at: Date;
}

export interface ResolvedSession {
  session: SessionRow;
  person: PersonRow;
  /** When the session ends unless used before: the idle expiry, never after the absolute one. */
  expiresAt: Date;
}

export interface InvitationRow {
  id: string;
  workspace_id: string;
  email: string;
  role: Role;
  invited_by_label: string;
  created_at: Date;
  expires_at: Date;
}

/** A person acting in a workspace with their role there. */
export interface WorkspaceActor {
  actor: Actor & { kind: 'person' };
  role: Role;
}

/** The session's last use is written at most this often (idle expiry precision). */
export const SESSION_TOUCH_SECONDS = 60;

export function passwordIssue(password: string, path: string[] = ['body', 'password']): ValidationFailed | null {
  const n = [...password].length;
  if (n >= PASSWORD_MIN && n <= PASSWORD_MAX) return null;
  const code = n < PASSWORD_MIN ? 'too_small' : 'too_big';
  const message = `password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`;
  return new ValidationFailed([{ code, path, message }], `The ${message}`);
}

const memberView = (r: { person_id: string; email: string; display_name: string; role: Role; joined_at: Date }): MemberView => ({
  person_id: r.person_id,
  email: r.email,
  display_name: r.display_name,
  role: r.role,
  joined_at: r.joined_at.toISOString(),
});

const invitationView = (r: InvitationRow): InvitationView => ({
  id: r.id,
  email: r.email,
  role: r.role,
  invited_by: r.invited_by_label,
  created_at: r.created_at.toISOString(),
  expires_at: r.expires_at.toISOString(),
});

/**
 * People, their roles in workspaces, sessions, invitations and password resets (schema `people`):
 * the one implementation the console and the admin CLI both call. Every change writes its audit
 * row in the same transaction. Secrets (session ids, invitation and reset tokens) are returned
 * once to the caller and stored as SHA-256; passwords as argon2id.
 */
export class PeopleAdmin {
  readonly audit: AuditLog;

  constructor(
    private readonly ds: DataSource,
    private readonly opts: PeopleOptions,
  ) {
    this.audit = new AuditLog(ds);
  }

  private tx<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
  }

  // ---- persons ----

  async findPersonByEmail(email: string, db: SqlRunner = this.ds): Promise<PersonRow | null> {
    const [row] = await queryRows<PersonRow>(db, `SELECT id, email, display_name, password_hash FROM people.persons WHERE email = $1`, [normalizeEmail(email)]);
    return row ?? null;
  }

  async getPerson(id: string): Promise<PersonRow | null> {
    const [row] = await queryRows<PersonRow>(this.ds, `SELECT id, email, display_name, password_hash FROM people.persons WHERE id = $1`, [id]);
    return row ?? null;
  }

  /**
   * The admin CLI's `user create`: the person with this e-mail (created when missing) gets this
   * password (their other sessions end) and this role in the workspace. The caller checked that
   * the workspace exists.
   */
  async createUser(input: { email: string; password: string; displayName?: string; workspaceId: string; role: Role }, actor: Actor): Promise<{ person: PersonRow; created: boolean }> {
    const email = normalizeEmail(input.email);
    if (!isEmail(email) || email.length > PERSON_EMAIL_MAX) throw new ValidationFailed([{ code: 'invalid_format', path: ['email'], message: `"${input.email}" is not an e-mail address` }], `"${input.email}" is not an e-mail address`);
    const bad = passwordIssue(input.password, ['password']);
    if (bad) throw bad;
    const passwordHash = await hashPassword(input.password);
    return this.tx(async (em) => {
      let created = false;
      let [person] = await queryRows<PersonRow>(
        em,
        `INSERT INTO people.persons (email, display_name, password_hash, password_changed_at) VALUES ($1, $2, $3, clock_timestamp())
         ON CONFLICT (email) DO NOTHING RETURNING id, email, display_name, password_hash`,
        [email, input.displayName ?? '', passwordHash],
      );
      if (person) {
        created = true;
        await this.audit.record({ workspaceId: input.workspaceId, actor, action: 'person.created', targetKind: 'person', targetId: person.id, details: { email } }, em);
      } else {
        [person] = await queryRows<PersonRow>(
          em,
          `UPDATE people.persons SET password_hash = $2, password_changed_at = clock_timestamp(), display_name = COALESCE($3, display_name)
            WHERE email = $1 RETURNING id, email, display_name, password_hash`,
          [email, passwordHash, input.displayName ?? null],
        );
        await em.query(`DELETE FROM people.sessions WHERE person_id = $1`, [person.id]);
        await this.audit.record({ workspaceId: input.workspaceId, actor, action: 'person.password_set', targetKind: 'person', targetId: person.id, details: { email } }, em);
      }
      const [before] = await queryRows<{ role: Role }>(em, `SELECT role FROM people.memberships WHERE workspace_id = $1 AND person_id = $2 FOR UPDATE`, [input.workspaceId, person.id]);
      if (!before) {
        await em.query(`INSERT INTO people.memberships (workspace_id, person_id, role) VALUES ($1, $2, $3)`, [input.workspaceId, person.id, input.role]);
        await this.audit.record({ workspaceId: input.workspaceId, actor, action: 'member.added', targetKind: 'member', targetId: person.id, details: { email, role: input.role } }, em);
      } else if (before.role !== input.role) {
        await this.lockOwners(em, input.workspaceId);
        if (losesLastOwner({ kind: 'change_role', from: before.role, to: input.role, self: false }, await this.ownerCount(em, input.workspaceId))) throw new LastOwner();
        await em.query(`UPDATE people.memberships SET role = $3 WHERE workspace_id = $1 AND person_id = $2`, [input.workspaceId, person.id, input.role]);
        await this.audit.record({ workspaceId: input.workspaceId, actor, action: 'member.role_changed', targetKind: 'member', targetId: person.id, details: { email, from: before.role, to: input.role } }, em);
      }
      return { person, created };
    });
  }

  /** The person whose e-mail and password these are, or null (the same time either way). */
  async authenticate(email: string, password: string): Promise<PersonRow | null> {
    const person = await this.findPersonByEmail(email);
    const ok = await verifyPassword(person?.password_hash, password);
    return ok && person ? person : null;
  }

  // ---- sessions ----

  /** A new session (sign-in): the secret goes in the cookie, only its SHA-256 is stored. */
  async createSession(personId: string): Promise<{ secret: string; session: SessionRow; expiresAt: Date }> {
    const secret = randomSecret();
    // Expired sessions of anyone are dropped here, a few at a time: sign-ins pay for the sweep.
    await this.ds.query(
      `DELETE FROM people.sessions WHERE id IN (
         SELECT id FROM people.sessions
          WHERE absolute_expires_at < clock_timestamp() OR last_seen_at < clock_timestamp() - make_interval(secs => $1)
          LIMIT 100)`,
      [this.opts.sessionIdleSeconds],
    );
    const [session] = await queryRows<SessionRow>(
      this.ds,
      `INSERT INTO people.sessions (token_hash, person_id, absolute_expires_at)
       VALUES ($1, $2, clock_timestamp() + make_interval(secs => $3))
       RETURNING id, person_id, created_at, last_seen_at, absolute_expires_at`,
      [sha256Hex(secret), personId, this.opts.sessionAbsoluteSeconds],
    );
    return { secret, session, expiresAt: this.expiryOf(session) };
  }

  private expiryOf(s: SessionRow): Date {
    return new Date(Math.min(s.last_seen_at.getTime() + this.opts.sessionIdleSeconds * 1000, s.absolute_expires_at.getTime()));
  }

  /**
   * The live session whose secret this is, with its person; null when unknown or expired (idle or
   * absolute; an expired one is deleted). Records the use (at most every SESSION_TOUCH_SECONDS).
   */
  async resolveSession(secret: string | undefined): Promise<ResolvedSession | null> {
    if (!isWellFormedSecret(secret)) return null;
    const [row] = await queryRows<SessionRow & PersonRow & { session_id: string; expired: boolean; stale: boolean }>(
      this.ds,
      `SELECT s.id AS session_id, s.person_id, s.created_at, s.last_seen_at, s.absolute_expires_at,
              p.id, p.email, p.display_name, p.password_hash,
              (s.absolute_expires_at <= clock_timestamp() OR s.last_seen_at + make_interval(secs => $2) <= clock_timestamp()) AS expired,
              (s.last_seen_at + make_interval(secs => $3) <= clock_timestamp()) AS stale
         FROM people.sessions s JOIN people.persons p ON p.id = s.person_id
        WHERE s.token_hash = $1`,
      [sha256Hex(secret), this.opts.sessionIdleSeconds, SESSION_TOUCH_SECONDS],
    );
    if (!row) return null;
    if (row.expired) {
      await this.ds.query(`DELETE FROM people.sessions WHERE id = $1`, [row.session_id]);
      return null;
    }
    let session: SessionRow = { id: row.session_id, person_id: row.person_id, created_at: row.created_at, last_seen_at: row.last_seen_at, absolute_expires_at: row.absolute_expires_at };
    if (row.stale) {
      const [touched] = await queryRows<SessionRow>(
        this.ds,
        `UPDATE people.sessions SET last_seen_at = clock_timestamp() WHERE id = $1 RETURNING id, person_id, created_at, last_seen_at, absolute_expires_at`,
        [row.session_id],
      );
      if (touched) session = touched;
    }
    const person: PersonRow = { id: row.id, email: row.email, display_name: row.display_name, password_hash: row.password_hash };
    return { session, person, expiresAt: this.expiryOf(session) };
  }

  async endSession(sessionId: string): Promise<void> {
    await this.ds.query(`DELETE FROM people.sessions WHERE id = $1`, [sessionId]);
  }

  /** Sign out everywhere: every session of the person ends (or every other one). */
  async endAllSessions(personId: string, exceptSessionId?: string): Promise<number> {
    const rows = await queryRows<{ id: string }>(this.ds, `DELETE FROM people.sessions WHERE person_id = $1 AND id IS DISTINCT FROM $2 RETURNING id`, [personId, exceptSessionId ?? null]);
    return rows.length;
  }

  // ---- memberships ----

  /** The person's workspaces with their role, in the order they joined them. */
  async workspacesOf(personId: string): Promise<{ workspace_id: string; role: Role }[]> {
    return queryRows(this.ds, `SELECT workspace_id, role FROM people.memberships WHERE person_id = $1 ORDER BY created_at, workspace_id`, [personId]);
  }

  async roleIn(personId: string, workspaceId: string): Promise<Role | null> {
    const [row] = await queryRows<{ role: Role }>(this.ds, `SELECT role FROM people.memberships WHERE person_id = $1 AND workspace_id = $2`, [personId, workspaceId]);
    return row?.role ?? null;
  }

  async listMembers(workspaceId: string): Promise<MemberView[]> {
    const rows = await queryRows<{ person_id: string; email: string; display_name: string; role: Role; joined_at: Date }>(
      this.ds,
      `SELECT m.person_id, p.email, p.display_name, m.role, m.created_at AS joined_at
         FROM people.memberships m JOIN people.persons p ON p.id = m.person_id
        WHERE m.workspace_id = $1
        ORDER BY m.created_at, p.email`,
      [workspaceId],
    );
    return rows.map(memberView);
  }

  private async lockOwners(em: EntityManager, workspaceId: string): Promise<void> {
    await em.query(`SELECT person_id FROM people.memberships WHERE workspace_id = $1 AND role = 'owner' ORDER BY person_id FOR UPDATE`, [workspaceId]);
  }

  private async ownerCount(em: EntityManager, workspaceId: string): Promise<number> {
    const [row] = await queryRows<{ n: number }>(em, `SELECT count(*)::int AS n FROM people.memberships WHERE workspace_id = $1 AND role = 'owner'`, [workspaceId]);
    return row.n;
  }

  /** Changes a member's role: 404 not a member, 403 forbidden_role, 409 last_owner. */
  async changeRole(workspaceId: string, by: WorkspaceActor, personId: string, role: Role): Promise<MemberView> {
    return this.tx(async (em) => {
      await this.lockOwners(em, workspaceId);
      const target = await this.memberForUpdate(em, workspaceId, personId);
      const change: MembershipChange = { kind: 'change_role', from: target.role, to: role, self: personId === by.actor.id };
      if (refusalOf(by.role, change)) throw new ForbiddenRole(by.role === 'member' ? undefined : 'Only owners give or take the owner role');
      if (target.role === role) return memberView(target);
      if (losesLastOwner(change, await this.ownerCount(em, workspaceId))) throw new LastOwner();
      await em.query(`UPDATE people.memberships SET role = $3 WHERE workspace_id = $1 AND person_id = $2`, [workspaceId, personId, role]);
      await this.audit.record({ workspaceId, actor: by.actor, action: 'member.role_changed', targetKind: 'member', targetId: personId, details: { email: target.email, from: target.role, to: role } }, em);
      return memberView({ ...target, role });
    });
  }

  /** Removes a member (or the actor leaves): 404 not a member, 403 forbidden_role, 409 last_owner. */
  async removeMember(workspaceId: string, by: WorkspaceActor, personId: string): Promise<void> {
    await this.tx(async (em) => {
      await this.lockOwners(em, workspaceId);
      const target = await this.memberForUpdate(em, workspaceId, personId);
      const change: MembershipChange = { kind: 'remove', from: target.role, self: personId === by.actor.id };
      if (refusalOf(by.role, change)) throw new ForbiddenRole(by.role === 'member' ? undefined : 'Only owners remove owners');
      if (losesLastOwner(change, await this.ownerCount(em, workspaceId))) throw new LastOwner();
      await em.query(`DELETE FROM people.memberships WHERE workspace_id = $1 AND person_id = $2`, [workspaceId, personId]);
      await this.audit.record(
        { workspaceId, actor: by.actor, action: change.self ? 'member.left' : 'member.removed', targetKind: 'member', targetId: personId, details: { email: target.email, role: target.role } },
        em,
      );
    });
  }

  private async memberForUpdate(em: EntityManager, workspaceId: string, personId: string) {
    const [row] = await queryRows<{ person_id: string; email: string; display_name: string; role: Role; joined_at: Date }>(
      em,
      `SELECT m.person_id, p.email, p.display_name, m.role, m.created_at AS joined_at
         FROM people.memberships m JOIN people.persons p ON p.id = m.person_id
        WHERE m.workspace_id = $1 AND m.person_id = $2
          FOR UPDATE OF m`,
      [workspaceId, personId],
    );
    if (!row) throw new NotFound('Member');
    return row;
  }

  // ---- invitations ----

  /**
   * A new invitation (an open one to the same e-mail is replaced): the token is returned once, for
   * the e-mail. 403 forbidden_role (admins do not invite owners), 409 when already a member.
   * `deliver` (sending the e-mail) runs before the commit: when it fails, nothing is created.
   */
  async createInvitation(
    workspaceId: string,
    by: WorkspaceActor | { actor: Actor; role: 'owner' },
    email: string,
    role: Role,
    deliver: (invitation: InvitationView, token: string) => Promise<void> = async () => undefined,
  ): Promise<{ invitation: InvitationView; token: string }> {
    if (!mayManageRole(by.role, role)) throw new ForbiddenRole(by.role === 'member' ? undefined : 'Only owners invite owners');
    const address = normalizeEmail(email);
    const token = randomSecret();
    return this.tx(async (em) => {
      const [member] = await queryRows(
        em,
        `SELECT 1 FROM people.memberships m JOIN people.persons p ON p.id = m.person_id WHERE m.workspace_id = $1 AND p.email = $2`,
        [workspaceId, address],
      );
      if (member) throw new DomainError('conflict', `${address} is already a member of this workspace`);
      await em.query(`DELETE FROM people.invitations WHERE workspace_id = $1 AND email = $2 AND accepted_at IS NULL`, [workspaceId, address]);
      const [row] = await queryRows<InvitationRow>(
        em,
        `INSERT INTO people.invitations (workspace_id, email, role, token_hash, invited_by, invited_by_label, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp() + make_interval(secs => $7))
         RETURNING id, workspace_id, email, role, invited_by_label, created_at, expires_at`,
        [workspaceId, address, role, sha256Hex(token), by.actor.id, by.actor.label, this.opts.invitationTtlSeconds],
      );
      await this.audit.record({ workspaceId, actor: by.actor, action: 'invitation.created', targetKind: 'invitation', targetId: row.id, details: { email: address, role } }, em);
      const invitation = invitationView(row);
      await deliver(invitation, token);
      return { invitation, token };
    });
  }

  /** Open invitations of a workspace (not accepted, not expired), newest first. */
  async listInvitations(workspaceId: string): Promise<InvitationView[]> {
    const rows = await queryRows<InvitationRow>(
      this.ds,
      `SELECT id, workspace_id, email, role, invited_by_label, created_at, expires_at FROM people.invitations
        WHERE workspace_id = $1 AND accepted_at IS NULL AND expires_at > clock_timestamp()
        ORDER BY created_at DESC, id`,
      [workspaceId],
    );
    return rows.map(invitationView);
  }

  async deleteInvitation(workspaceId: string, by: WorkspaceActor, invitationId: string): Promise<void> {
    await this.tx(async (em) => {
      const [row] = await queryRows<InvitationRow>(
        em,
        `SELECT id, workspace_id, email, role, invited_by_label, created_at, expires_at FROM people.invitations
          WHERE workspace_id = $1 AND id = $2 AND accepted_at IS NULL FOR UPDATE`,
        [workspaceId, invitationId],
      );
      if (!row) throw new NotFound('Invitation');
      if (!mayManageRole(by.role, row.role)) throw new ForbiddenRole(by.role === 'member' ? undefined : 'Only owners withdraw invitations of owners');
      await em.query(`DELETE FROM people.invitations WHERE id = $1`, [invitationId]);
      await this.audit.record({ workspaceId, actor: by.actor, action: 'invitation.deleted', targetKind: 'invitation', targetId: invitationId, details: { email: row.email, role: row.role } }, em);
    });
  }

  /** The open invitation of this token (null: unknown, used or expired), and whether its e-mail has an account. */
  async findInvitation(token: string): Promise<{ invitation: InvitationRow; hasAccount: boolean } | null> {
    if (!isWellFormedSecret(token)) return null;
    const [row] = await queryRows<InvitationRow & { has_account: boolean }>(
      this.ds,
      `SELECT i.id, i.workspace_id, i.email, i.role, i.invited_by_label, i.created_at, i.expires_at,
              EXISTS (SELECT 1 FROM people.persons p WHERE p.email = i.email AND p.password_hash IS NOT NULL) AS has_account
         FROM people.invitations i
        WHERE i.token_hash = $1 AND i.accepted_at IS NULL AND i.expires_at > clock_timestamp()`,
      [sha256Hex(token)],
    );
    if (!row) return null;
    const { has_account, ...invitation } = row;
    return { invitation, hasAccount: has_account };
  }

  /**
   * Accepts an invitation: creates the person when none has the e-mail (the password then must be
   * 12 to 256 characters), else the password must be theirs (401 invalid_credentials). The person
   * becomes a member with the invited role (one already a member keeps their role). Single use:
   * 400 invalid_token when unknown, used or expired.
   */
  async acceptInvitation(token: string, password: string, displayName?: string): Promise<{ person: PersonRow; workspaceId: string; role: Role }> {
    if (!isWellFormedSecret(token)) throw new InvalidToken('invitation');
    const found = await this.findInvitation(token);
    if (!found) throw new InvalidToken('invitation');
    const existing = await this.findPersonByEmail(found.invitation.email);
    let newHash: string | null = null;
    if (existing?.password_hash) {
      if (!(await verifyPassword(existing.password_hash, password))) throw new InvalidCredentials();
    } else {
      const bad = passwordIssue(password);
      if (bad) throw bad;
      newHash = await hashPassword(password);
    }
    try {
      return await this.tx(async (em) => {
        const [inv] = await queryRows<InvitationRow>(
          em,
          `UPDATE people.invitations SET accepted_at = clock_timestamp()
            WHERE token_hash = $1 AND accepted_at IS NULL AND expires_at > clock_timestamp()
            RETURNING id, workspace_id, email, role, invited_by_label, created_at, expires_at`,
          [sha256Hex(token)],
        );
        if (!inv) throw new InvalidToken('invitation');
        let person: PersonRow;
        if (newHash) {
          [person] = await queryRows<PersonRow>(
            em,
            `INSERT INTO people.persons (email, display_name, password_hash, password_changed_at) VALUES ($1, $2, $3, clock_timestamp())
             ON CONFLICT (email) DO UPDATE SET password_hash = EXCLUDED.password_hash, password_changed_at = EXCLUDED.password_changed_at,
               display_name = CASE WHEN people.persons.display_name = '' THEN EXCLUDED.display_name ELSE people.persons.display_name END
             WHERE people.persons.password_hash IS NULL
             RETURNING id, email, display_name, password_hash`,
            [inv.email, (displayName ?? '').trim(), newHash],
          );
          if (!person) throw new InvalidCredentials(); // someone set a password in between
          const actor: Actor = { kind: 'person', id: person.id, label: person.email };
          await this.audit.record({ workspaceId: inv.workspace_id, actor, action: 'person.created', targetKind: 'person', targetId: person.id, details: { email: person.email } }, em);
        } else {
          person = existing!;
        }
        const actor: Actor = { kind: 'person', id: person.id, label: person.email };
        const added = await queryRows(
          em,
          `INSERT INTO people.memberships (workspace_id, person_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING person_id`,
          [inv.workspace_id, person.id, inv.role],
        );
        await this.audit.record(
          { workspaceId: inv.workspace_id, actor, action: 'invitation.accepted', targetKind: 'invitation', targetId: inv.id, details: { email: inv.email, role: inv.role, already_member: added.length === 0 } },
          em,
        );
        const [m] = await queryRows<{ role: Role }>(em, `SELECT role FROM people.memberships WHERE workspace_id = $1 AND person_id = $2`, [inv.workspace_id, person.id]);
        return { person, workspaceId: inv.workspace_id, role: m.role };
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new InvalidToken('invitation');
      throw err;
    }
  }

  // ---- password resets ----

  /**
   * A reset link for the person with this e-mail: the token (for the e-mail), or null when no such
   * person exists or they already have passwordResetsMaxOpen open links (nothing is sent then).
   */
  async createPasswordReset(email: string): Promise<{ token: string; person: PersonRow } | null> {
    const person = await this.findPersonByEmail(email);
    if (!person) return null;
    const token = randomSecret();
    const [row] = await queryRows<{ id: string }>(
      this.ds,
      `INSERT INTO people.password_resets (person_id, token_hash, expires_at)
       SELECT $1, $2, clock_timestamp() + make_interval(secs => $3)
        WHERE (SELECT count(*) FROM people.password_resets WHERE person_id = $1 AND used_at IS NULL AND expires_at > clock_timestamp()) < $4
       RETURNING id`,
      [person.id, sha256Hex(token), this.opts.passwordResetTtlSeconds, this.opts.passwordResetsMaxOpen ?? 3],
    );
    return row ? { token, person } : null;
  }

  /** Sets the password of a reset link (single use, expiring) and ends all the person's sessions. */
  async confirmPasswordReset(token: string, password: string): Promise<PersonRow> {
    if (!isWellFormedSecret(token)) throw new InvalidToken('reset link');
    const bad = passwordIssue(password);
    if (bad) throw bad;
    const passwordHash = await hashPassword(password);
    return this.tx(async (em) => {
      const [reset] = await queryRows<{ person_id: string }>(
        em,
        `UPDATE people.password_resets SET used_at = clock_timestamp()
          WHERE token_hash = $1 AND used_at IS NULL AND expires_at > clock_timestamp() RETURNING person_id`,
        [sha256Hex(token)],
      );
      if (!reset) throw new InvalidToken('reset link');
      const [person] = await queryRows<PersonRow>(
        em,
        `UPDATE people.persons SET password_hash = $2, password_changed_at = clock_timestamp() WHERE id = $1 RETURNING id, email, display_name, password_hash`,
        [reset.person_id, passwordHash],
      );
      // Every other open link of the person is used up too, and every session ends.
      await em.query(`UPDATE people.password_resets SET used_at = clock_timestamp() WHERE person_id = $1 AND used_at IS NULL`, [person.id]);
      await em.query(`DELETE FROM people.sessions WHERE person_id = $1`, [person.id]);
      const actor: Actor = { kind: 'person', id: person.id, label: person.email };
      await this.audit.record({ workspaceId: null, actor, action: 'person.password_reset', targetKind: 'person', targetId: person.id, details: { email: person.email } }, em);
      return person;
    });
  }
}
