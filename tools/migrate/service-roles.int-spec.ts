import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { Client } from 'pg';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { SCHEMA_OWNERS, SCHEMA_OWNER_APPS, SchemaOwner, databaseUrlVariable, defaultDatabaseRole } from '@sa/config';
import { createDataSource } from '@sa/db';
import { TestDatabase, createTestDatabase, databaseUrl, dropDatabase, withAdmin } from '@sa/testing';
import { ServiceRole, provisionServiceRoles, scramSha256Verifier, serviceRolesFromEnv } from './service-roles';

// Data ownership enforced by PostgreSQL: each app's role (created and granted by the real migrate
// command, which migrated the template these databases are cloned from) reads and writes its own
// schema and is refused (SQLSTATE 42501) every other app's schema and the migrations table.

const ROOT = path.resolve(__dirname, '..', '..');
const PERMISSION_DENIED = '42501';

interface Table {
  schema: string;
  table: string;
  /** A column UPDATE may set (not generated, not an identity column). */
  column: string;
}

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Runs `sql` and gives the SQLSTATE it failed with, or null; a write is rolled back. */
async function outcome(c: Client, sql: string): Promise<string | null> {
  await c.query('BEGIN');
  try {
    await c.query(sql);
    return null;
  } catch (err) {
    return (err as { code?: string }).code ?? 'no code';
  } finally {
    await c.query('ROLLBACK');
  }
}

/** What one role gets on one table: the SQLSTATE of SELECT, INSERT, UPDATE and DELETE (null: allowed). */
async function tableAccess(c: Client, t: Table): Promise<(string | null)[]> {
  const name = `${q(t.schema)}.${q(t.table)}`;
  const results: (string | null)[] = [];
  for (const sql of [
    `SELECT * FROM ${name} LIMIT 1`,
    // Fails on a NOT NULL or CHECK constraint (not 42501) once the privilege is there.
    `INSERT INTO ${name} DEFAULT VALUES`,
    `UPDATE ${name} SET ${q(t.column)} = ${q(t.column)} WHERE false`,
    `DELETE FROM ${name} WHERE false`,
  ]) {
    const code = await outcome(c, sql);
    results.push(code === PERMISSION_DENIED ? code : null);
  }
  return results;
}

async function connect(url: string): Promise<Client> {
  const c = new Client({ connectionString: url, application_name: 'service-roles-int' });
  await c.connect();
  return c;
}

/** The administrator's connection, as the migrate command has it. */
function adminDataSource(url: string): Promise<DataSource> {
  return createDataSource({ url, applicationName: 'service-roles-int', poolSize: 1, logger: pino({ level: 'silent' }) });
}

let db: TestDatabase;
let tables: Table[];

beforeAll(async () => {
  db = await createTestDatabase('sa_test_roles');
  const admin = await connect(db.url);
  try {
    const { rows } = await admin.query<Table>(
      `SELECT c.table_schema AS schema, c.table_name AS "table", min(c.column_name) AS column
         FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
        WHERE c.table_schema = ANY($1) AND t.table_type = 'BASE TABLE' AND c.is_generated = 'NEVER' AND c.is_identity = 'NO'
        GROUP BY 1, 2 ORDER BY 1, 2`,
      [Object.values(SCHEMA_OWNERS)],
    );
    tables = rows;
  } finally {
    await admin.end();
  }
});

afterAll(async () => {
  await db?.drop();
});

describe("each app's role (as the migrate command leaves them)", () => {
  it('every schema has tables to try', () => {
    expect([...new Set(tables.map((t) => t.schema))].sort()).toEqual(Object.values(SCHEMA_OWNERS).sort());
    expect(tables.length).toBeGreaterThanOrEqual(20);
  });

  it.each(SCHEMA_OWNER_APPS)('%s reads and writes its own schema, and PostgreSQL refuses it every other schema', async (app) => {
    const c = await connect(db.appUrl(app));
    try {
      expect((await c.query<{ user: string }>('SELECT current_user AS user')).rows[0].user).toBe(defaultDatabaseRole(app));
      const own = SCHEMA_OWNERS[app];
      const refused = [PERMISSION_DENIED, PERMISSION_DENIED, PERMISSION_DENIED, PERMISSION_DENIED];
      for (const t of tables) {
        expect([`${t.schema}.${t.table}`, await tableAccess(c, t)]).toEqual([`${t.schema}.${t.table}`, t.schema === own ? [null, null, null, null] : refused]);
      }
      // Refused at the schema, before any table is looked up.
      for (const other of Object.values(SCHEMA_OWNERS).filter((s) => s !== own)) {
        await expect(c.query(`SELECT 1 FROM ${other}.no_such_table`)).rejects.toMatchObject({ code: PERMISSION_DENIED, message: `permission denied for schema ${other}` });
      }
      // The migrations table (public) is the migrate command's.
      await expect(c.query('SELECT * FROM public.migrations')).rejects.toMatchObject({ code: PERMISSION_DENIED });
      await expect(c.query('CREATE TABLE public.sneaky (id int)')).rejects.toMatchObject({ code: PERMISSION_DENIED });
      await expect(c.query(`CREATE TABLE ${own}.sneaky (id int)`)).rejects.toMatchObject({ code: PERMISSION_DENIED });
    } finally {
      await c.end();
    }
  });

  it("writes really land in the app's own schema: the gateway stores a workspace, bots a bot", async () => {
    const gateway = await connect(db.appUrl('gateway'));
    const bots = await connect(db.appUrl('bots'));
    try {
      const ws = (await gateway.query<{ id: string }>(`INSERT INTO identity.workspaces (name, plan) VALUES ('Roles', 'scale') RETURNING id`)).rows[0].id;
      await bots.query(`INSERT INTO bots.bots (tenant_id, name, language, slot_kind) VALUES ($1, 'Bot', 'en', 'plan')`, [ws]);
      expect((await bots.query('SELECT count(*)::int AS n FROM bots.bots WHERE tenant_id = $1', [ws])).rows[0].n).toBe(1);
      await expect(bots.query('SELECT name FROM identity.workspaces WHERE id = $1', [ws])).rejects.toMatchObject({ code: PERMISSION_DENIED });
    } finally {
      await gateway.end();
      await bots.end();
    }
  });
});

describe('provisioning the roles', () => {
  const suffix = randomBytes(3).toString('hex');
  const created: string[] = [];
  const databases: string[] = [];

  /** Roles of this test only (cluster-wide, so unique names), through the apps' URL variables. */
  function customRoles(label: string, password?: (app: SchemaOwner) => string): ServiceRole[] {
    const env: Record<string, string> = { DATABASE_URL: db.url };
    for (const app of SCHEMA_OWNER_APPS) {
      const role = `${defaultDatabaseRole(app)}_${label}_${suffix}`;
      created.push(role);
      const u = new URL(db.url);
      u.username = role;
      if (password) u.password = password(app);
      env[databaseUrlVariable(app)] = u.toString();
    }
    return serviceRolesFromEnv(env);
  }

  async function freshDatabase(): Promise<TestDatabase> {
    const d = await createTestDatabase('sa_test_roles_p');
    databases.push(d.name);
    return d;
  }

  afterAll(async () => {
    for (const name of databases) await dropDatabase(name);
    // Their grants went with the databases: the roles can go.
    await withAdmin(async (c) => {
      for (const role of created) await c.query(`DROP ROLE IF EXISTS ${q(role)}`);
    });
  });

  it('creates missing roles once, also when two runs on two databases race, and runs again without change', async () => {
    const roles = customRoles('race');
    const [a, b] = [await freshDatabase(), await freshDatabase()];
    const [ca, cb] = [await adminDataSource(a.url), await adminDataSource(b.url)];
    const logs: string[][] = [[], []];
    try {
      await Promise.all([provisionServiceRoles(ca, roles, (l) => logs[0].push(l)), provisionServiceRoles(cb, roles, (l) => logs[1].push(l))]);
      await provisionServiceRoles(ca, roles);
      await provisionServiceRoles(cb, roles);
    } finally {
      await ca.destroy();
      await cb.destroy();
    }
    const createdLines = [...logs[0], ...logs[1]].filter((l) => l.startsWith('created role'));
    expect(createdLines.sort()).toEqual(roles.map((r) => `created role ${r.role} (${r.app})`).sort());
    for (const d of [a, b]) {
      const r = roles.find((x) => x.app === 'chat')!;
      const u = new URL(d.url);
      u.username = r.role;
      const c = await connect(u.toString());
      try {
        await expect(c.query('SELECT count(*) FROM chat.messages')).resolves.toBeDefined();
        await expect(c.query('SELECT count(*) FROM leads.leads')).rejects.toMatchObject({ code: PERMISSION_DENIED });
      } finally {
        await c.end();
      }
    }
  });

  it("covers tables a later migration adds, and takes back a grant on another app's schema", async () => {
    const d = await freshDatabase();
    const admin = await adminDataSource(d.url);
    const chat = await connect(d.appUrl('chat'));
    try {
      await admin.query('CREATE TABLE chat.later (id int)');
      await admin.query('GRANT USAGE ON SCHEMA bots TO sa_chat');
      await admin.query('GRANT SELECT ON bots.bots TO sa_chat');
      // Default privileges already cover the new table, before any re-grant.
      await expect(chat.query('SELECT * FROM chat.later')).resolves.toBeDefined();
      await expect(chat.query('SELECT * FROM bots.bots')).resolves.toBeDefined();
      await provisionServiceRoles(admin, serviceRolesFromEnv({ DATABASE_URL: d.url }));
      await expect(chat.query('SELECT * FROM bots.bots')).rejects.toMatchObject({ code: PERMISSION_DENIED });
      await expect(chat.query('INSERT INTO chat.later VALUES (1)')).resolves.toBeDefined();
    } finally {
      await chat.end();
      await admin.destroy();
    }
  });

  it('refuses a role that could still read another schema (a member of pg_read_all_data)', async () => {
    const roles = customRoles('wide');
    const d = await freshDatabase();
    const admin = await adminDataSource(d.url);
    try {
      await provisionServiceRoles(admin, roles);
      const bots = roles.find((r) => r.app === 'bots')!;
      await admin.query(`GRANT pg_read_all_data TO ${q(bots.role)}`);
      await expect(provisionServiceRoles(admin, roles)).rejects.toThrow(new RegExp(`role ${bots.role} \\(bots\\) can use schema identity of gateway: it is a superuser`));
    } finally {
      await admin.destroy();
    }
  });

  it('says what is missing when the migrating user may not create roles', async () => {
    const d = await freshDatabase();
    const weak = `sa_t_weak_${suffix}`;
    created.push(weak);
    await withAdmin((c) => c.query(`CREATE ROLE ${q(weak)} LOGIN`));
    const u = new URL(d.url);
    u.username = weak;
    const ds = await adminDataSource(u.toString());
    try {
      await expect(provisionServiceRoles(ds, customRoles('weak'))).rejects.toThrow(/cannot create or change role sa_gateway_weak_\w+ \(gateway\): the migrating user needs CREATEROLE/);
    } finally {
      await ds.destroy();
    }
  });

  it('refuses two apps on one role, and a URL without a user', () => {
    expect(() => serviceRolesFromEnv({ DATABASE_URL: db.url, CHAT_DATABASE_URL: 'postgres://sa_leads@127.0.0.1/x' })).toThrow('chat and leads would both connect as sa_leads');
    expect(() => serviceRolesFromEnv({ DATABASE_URL: db.url, CHAT_DATABASE_URL: 'postgres://127.0.0.1/x' })).toThrow('CHAT_DATABASE_URL names no user');
  });

  it("sets the password of a URL as the SCRAM-SHA-256 verifier PostgreSQL itself computes, never as the password's text", async () => {
    const passwords = Object.fromEntries(SCHEMA_OWNER_APPS.map((a) => [a, `pw-${a}-${randomBytes(6).toString('hex')}`])) as Record<SchemaOwner, string>;
    const roles = customRoles('pw', (app) => passwords[app]);
    expect(roles.find((r) => r.app === 'knowledge')?.password).toBe(passwords.knowledge);
    const d = await freshDatabase();
    const admin = await adminDataSource(d.url);
    try {
      await provisionServiceRoles(admin, roles);
      const storedOf = async (role: string) => ((await admin.query('SELECT rolpassword AS p FROM pg_authid WHERE rolname = $1', [role])) as { p: string }[])[0].p;
      for (const r of roles) {
        const stored = await storedOf(r.role);
        const m = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(stored);
        expect(m).not.toBeNull();
        expect(stored).toBe(scramSha256Verifier(passwords[r.app], Buffer.from(m![2], 'base64'), Number(m![1])));
        expect(stored).not.toContain(passwords[r.app]);
      }
      // PostgreSQL computes the same verifier for the same password, salt and iterations.
      const probe = `sa_scram_probe_${suffix}`;
      created.push(probe);
      await admin.query(`SET password_encryption = 'scram-sha-256'`);
      await admin.query(`CREATE ROLE ${q(probe)} PASSWORD 'pencil é'`);
      const own = await storedOf(probe);
      const [, iterations, salt] = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(own)!;
      expect(scramSha256Verifier('pencil é', Buffer.from(salt, 'base64'), Number(iterations))).toBe(own);
    } finally {
      await admin.destroy();
    }
  });
});

describe('the migrate command', () => {
  const run = (url: string) =>
    new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'tools', 'migrate', 'main.js')], { env: { PATH: process.env['PATH'], DATABASE_URL: url } });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('close', (code) => resolve({ code, out }));
    });

  it('creates a database, migrates it and grants the roles; run again, it changes nothing and succeeds', async () => {
    const name = `sa_test_roles_m_${randomBytes(4).toString('hex')}`;
    try {
      const first = await run(databaseUrl(name));
      expect(first).toMatchObject({ code: 0 });
      expect(first.out).toContain(`created database ${name}`);
      expect(first.out).toContain('roles: sa_gateway -> identity, sa_bots -> bots, sa_knowledge -> knowledge, sa_chat -> chat');
      const second = await run(databaseUrl(name));
      expect(second).toMatchObject({ code: 0 });
      expect(second.out).toContain('migrations: database is up to date');
      expect(second.out).not.toContain('created role');
      const u = new URL(databaseUrl(name));
      u.username = 'sa_webhook_dispatcher';
      const c = await connect(u.toString());
      try {
        await expect(c.query('SELECT count(*) FROM webhooks.deliveries')).resolves.toBeDefined();
        await expect(c.query('SELECT count(*) FROM identity.workspaces')).rejects.toMatchObject({ code: PERMISSION_DENIED });
      } finally {
        await c.end();
      }
    } finally {
      await dropDatabase(name);
    }
  });
});
