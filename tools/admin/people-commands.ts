import * as os from 'node:os';
import type { DataSource } from 'typeorm';
import { CreatedUserView, Role, isRole } from '@sa/contracts';
import { queryRows } from '@sa/db';
import { Actor, AuditLog, AuditRecord, PeopleAdmin, cliActor } from '@sa/people';
import { UsageError } from './args';

/** The operating-system user running the CLI, as the audit log names it (`cli:<user>`). */
export function cliUser(env: NodeJS.ProcessEnv = process.env): Actor {
  let name = '';
  try {
    name = os.userInfo().username;
  } catch {
    name = env['USER'] || env['LOGNAME'] || '';
  }
  return cliActor(name);
}

/** The password given on standard input: all of it, without one final line break. */
export async function readPasswordFromStdin(stdin: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

export function parseRole(value: string): Role {
  if (!isRole(value)) throw new UsageError(`--role must be owner, admin or member (got "${value}")`);
  return value;
}

/** PeopleAdmin for the CLI: the expiries the console uses unless its variables say otherwise. */
export function cliPeopleAdmin(ds: DataSource, env: NodeJS.ProcessEnv = process.env): PeopleAdmin {
  const int = (name: string, fallback: number) => (Number(env[name]) > 0 ? Number(env[name]) : fallback);
  return new PeopleAdmin(ds, {
    sessionIdleSeconds: int('CONSOLE_SESSION_IDLE_SECONDS', 1800),
    sessionAbsoluteSeconds: int('CONSOLE_SESSION_ABSOLUTE_SECONDS', 12 * 3600),
    invitationTtlSeconds: int('CONSOLE_INVITATION_TTL_SECONDS', 7 * 86400),
    passwordResetTtlSeconds: int('CONSOLE_PASSWORD_RESET_TTL_SECONDS', 3600),
  });
}

/** `user create`: the person (created or found) with this password and role in the workspace. */
export async function createUser(
  people: PeopleAdmin,
  input: { workspaceId: string; email: string; role: Role; password: string; displayName?: string },
  actor: Actor,
): Promise<CreatedUserView> {
  const { person } = await people.createUser({ email: input.email, password: input.password, displayName: input.displayName, workspaceId: input.workspaceId, role: input.role }, actor);
  return { id: person.id, email: person.email, workspace_id: input.workspaceId, role: input.role };
}

/** The workspace of a token (schema `identity`), for the audit row of `token revoke`. */
export async function tokenWorkspace(identity: DataSource, tokenId: string): Promise<string | null> {
  const [row] = await queryRows<{ workspace_id: string }>(identity, `SELECT workspace_id FROM identity.api_tokens WHERE id::text = $1`, [tokenId]);
  return row?.workspace_id ?? null;
}

/** The workspace of a webhook or of a delivery (schema `webhooks`). */
export async function webhookWorkspace(webhooks: DataSource, kind: 'webhook' | 'delivery', id: string): Promise<string | null> {
  const table = kind === 'webhook' ? 'webhooks.webhooks' : 'webhooks.deliveries';
  const [row] = await queryRows<{ tenant_id: string }>(webhooks, `SELECT tenant_id FROM ${table} WHERE id::text = $1`, [id]);
  return row?.tenant_id ?? null;
}

/** Appends the audit row of a CLI change. */
export async function auditCli(people: DataSource, record: Omit<AuditRecord, 'actor'>, actor: Actor = cliUser()): Promise<void> {
  await new AuditLog(people).record({ ...record, actor });
}
