import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import { DataSource, EntityManager } from 'typeorm';
import { SetupRequest } from '@sa/contracts';
import { DomainError } from '@sa/errors';
import { PeopleAdmin, PersonRow, SETUP_CODE_MIN_CHARS, SETUP_NEEDED_SQL, generateSetupCode, hashPassword, normaliseSetupCode, normalizeEmail, passwordIssue, setupCodeHash } from '@sa/people';
import { RpcClient } from '@sa/messaging';
import { CONSOLE_CONFIG, CONSOLE_LOGGER, ConsoleConfig } from '../config/console.config';


export class SetupDone extends DomainError {
  constructor() {
    super('setup_done', 'This installation is already set up: sign in instead');
  }
}

export class InvalidSetupCode extends DomainError {
  constructor() {
    super('invalid_setup_code', 'The setup code is not correct (it was printed by npm start, or logged by the console app)');
  }
}

/** Serialises setups across console replicas (pg_advisory_xact_lock). */
const SETUP_LOCK = 0x53455455; // "SETU"

/**
 * First-run setup (issue 31). While the installation has no person and was never set up, a
 * setup code is made at start (the operator's CONSOLE_SETUP_CODE, or a generated one that is
 * logged once) and stored as its SHA-256 in people.setup_codes; whoever holds a live code may
 * create the first workspace (plan CONSOLE_SETUP_PLAN, made by the gateway, owner of identity)
 * and its owner, who is then signed in. In the same transaction every code is deleted and
 * people.installation gets its row: from then on the setup answers 410 `setup_done`, for good.
 */
@Injectable()
export class SetupService implements OnApplicationBootstrap {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly people: PeopleAdmin,
    private readonly rpc: RpcClient,
    @Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig,
    @Inject(CONSOLE_LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const given = this.config.setupCode;
    if (given && normaliseSetupCode(given).length < SETUP_CODE_MIN_CHARS) {
      throw new Error(`CONSOLE_SETUP_CODE must have at least ${SETUP_CODE_MIN_CHARS} letters or digits`);
    }
    if (!(await this.needed())) return;
    const code = given || generateSetupCode();
    await this.ds.query(
      `INSERT INTO people.setup_codes (code_hash, expires_at) VALUES ($1, clock_timestamp() + make_interval(hours => $2))
       ON CONFLICT (code_hash) DO UPDATE SET expires_at = EXCLUDED.expires_at`,
      [setupCodeHash(code), this.config.setupCodeTtlHours],
    );
    const url = `${this.config.publicUrl}/setup`;
    // A code the operator chose is theirs already: only a generated one is shown, once, here (the
    // image and Kubernetes have no other way to hand it over). It dies with the first owner.
    if (given) this.logger.info({ url }, 'First-run setup: open the console and enter the setup code (CONSOLE_SETUP_CODE)');
    else this.logger.warn({ url, setup_code: code, expires_in_hours: this.config.setupCodeTtlHours }, `First-run setup: open ${url} and enter the setup code ${code}`);
  }

  /** True while nobody has set the installation up and no person exists (the admin CLI may have made one). */
  async needed(db: DataSource | EntityManager = this.ds): Promise<boolean> {
    const [row] = await db.query(SETUP_NEEDED_SQL);
    return row.needed === true;
  }

  /** Throws SetupDone (410) once the installation is set up. */
  async checkOpen(): Promise<void> {
    if (!(await this.needed())) throw new SetupDone();
  }

  /** Creates the workspace and its owner; the caller has checked the code (checkCode) and starts the session. */
  async complete(req: SetupRequest): Promise<{ person: PersonRow; workspaceId: string }> {
    const email = normalizeEmail(req.email);
    const bad = passwordIssue(req.password);
    if (bad) throw bad;
    const passwordHash = await hashPassword(req.password);
    const workspaceId = randomUUID();
    return this.ds.transaction(async (em) => {
      await em.query(`SELECT pg_advisory_xact_lock($1)`, [SETUP_LOCK]);
      if (!(await this.needed(em))) throw new SetupDone();
      if (!(await this.codeIsLive(em, req.code))) throw new InvalidSetupCode();
      const reply = await this.rpc.send('identity.workspace.setup', { workspaceId, name: req.workspace_name.trim(), plan: this.config.setupPlan });
      if (!reply.workspace) throw new Error('the gateway did not make the workspace');
      const [person] = (await em.query(
        `INSERT INTO people.persons (email, display_name, password_hash, password_changed_at) VALUES ($1, $2, $3, clock_timestamp())
         RETURNING id, email, display_name, password_hash`,
        [email, req.display_name.trim(), passwordHash],
      )) as PersonRow[];
      await em.query(`INSERT INTO people.memberships (workspace_id, person_id, role) VALUES ($1, $2, 'owner')`, [workspaceId, person.id]);
      await em.query(`INSERT INTO people.installation (singleton, set_up_by) VALUES (true, $1)`, [person.id]);
      await em.query(`DELETE FROM people.setup_codes`);
      const actor = { kind: 'person' as const, id: person.id, label: email };
      await this.people.audit.record({ workspaceId, actor, action: 'workspace.created', targetKind: 'workspace', targetId: workspaceId, details: { name: reply.workspace.name, plan: reply.workspace.plan, via: 'setup' } }, em);
      await this.people.audit.record({ workspaceId, actor, action: 'person.created', targetKind: 'person', targetId: person.id, details: { email } }, em);
      await this.people.audit.record({ workspaceId, actor, action: 'member.added', targetKind: 'member', targetId: person.id, details: { email, role: 'owner' } }, em);
      this.logger.info({ workspace_id: workspaceId, person_id: person.id }, 'First-run setup done: the setup codes are gone');
      return { person, workspaceId };
    });
  }

  private async codeIsLive(db: DataSource | EntityManager, code: string): Promise<boolean> {
    if (normaliseSetupCode(code).length < SETUP_CODE_MIN_CHARS) return false;
    const rows = await db.query(`SELECT 1 FROM people.setup_codes WHERE code_hash = $1 AND expires_at > clock_timestamp()`, [setupCodeHash(code)]);
    return rows.length > 0;
  }
}
