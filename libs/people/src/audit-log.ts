import type { AuditEntryView } from '@sa/contracts';
import { SqlRunner, queryRows } from '@sa/db';

/** Who made a change: a signed-in person, or the admin CLI run by an operating-system user. */
export type Actor = { kind: 'person'; id: string; label: string } | { kind: 'cli'; id: null; label: string };

export function cliActor(osUser: string): Actor {
  return { kind: 'cli', id: null, label: `cli:${osUser || 'unknown'}` };
}

export interface AuditRecord {
  /** The workspace the change concerns; null for a person's own account (password reset). */
  workspaceId: string | null;
  actor: Actor;
  /** `token.created`, `member.role_changed` … */
  action: string;
  targetKind: string;
  targetId: string | null;
  /** Non-secret facts only: never a secret, token or password. */
  details?: Record<string, unknown>;
}

interface AuditRow {
  id: string;
  at: Date;
  actor_kind: 'person' | 'cli';
  actor_id: string | null;
  actor_label: string;
  action: string;
  target_kind: string;
  target_id: string | null;
  details: Record<string, unknown>;
}

/** Keys whose values are never written to the audit log, whatever a caller passes. */
const SECRET_KEYS = /^(secret|token|password|csrf_token|.*_secret|.*_hash|.*password)$/i;

function scrub(details: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(details)) if (v !== undefined && !SECRET_KEYS.test(k)) out[k] = v;
  return out;
}

/** The audit log (people.audit_log): appended to by every change of the console and the admin CLI. */
export class AuditLog {
  constructor(private readonly db: SqlRunner) {}

  /** Appends one entry; pass the transaction's runner to write it with the change itself. */
  async record(entry: AuditRecord, runner: SqlRunner = this.db): Promise<void> {
    await runner.query(
      `INSERT INTO people.audit_log (workspace_id, actor_kind, actor_id, actor_label, action, target_kind, target_id, details)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)`,
      [entry.workspaceId, entry.actor.kind, entry.actor.id, entry.actor.label, entry.action, entry.targetKind, entry.targetId, JSON.stringify(scrub(entry.details ?? {}))],
    );
  }

  /**
   * A workspace's entries, newest first; `before`: only entries with a smaller id. (ORDER BY names
   * the table's bigint column: a bare `id` would be the text output column, and "9" sorts above "19".)
   */
  async list(workspaceId: string, opts: { limit: number; before?: string }): Promise<AuditEntryView[]> {
    const rows = await queryRows<AuditRow>(
      this.db,
      `SELECT id::text AS id, at, actor_kind, actor_id, actor_label, action, target_kind, target_id, details
         FROM people.audit_log
        WHERE workspace_id = $1 AND ($2::bigint IS NULL OR id < $2::bigint)
        ORDER BY audit_log.id DESC
        LIMIT $3`,
      [workspaceId, opts.before ?? null, opts.limit],
    );
    return rows.map((r) => ({
      id: r.id,
      at: r.at.toISOString(),
      actor: { kind: r.actor_kind, id: r.actor_id, label: r.actor_label },
      action: r.action,
      target_kind: r.target_kind,
      target_id: r.target_id,
      details: r.details,
    }));
  }
}
