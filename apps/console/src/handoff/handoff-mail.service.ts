import { Inject, Injectable, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { HandoffKind, HandoffNotifyRequest } from '@sa/contracts';
import { RpcClient } from '@sa/messaging';
import { PeopleAdmin } from '@sa/people';
import { CONSOLE_CONFIG, CONSOLE_LOGGER, ConsoleConfig } from '../config/console.config';
import { HANDOFF_DIGEST_LISTED, handoffDigestEmail } from '../mail/person-mail';

/** A new person's first e-mail lists the handoffs of at most this far back. */
const FIRST_LOOKBACK = '1 day';
/** Handoff requests are kept this long (each person's digest has long been sent by then). */
const KEEP = '7 days';

interface WindowRow {
  recent: boolean;
  covered_id: string;
}

/**
 * Handoff e-mails with a cap and a digest (issue 30). Every handoff is recorded
 * (people.handoff_mail_requests, idempotent by its event id); each owner and admin gets at most one
 * e-mail per CONSOLE_HANDOFF_MAIL_WINDOW_SECONDS (people.handoff_mail_windows), listing the
 * conversations that asked for a person since their previous one. The first handoff after a quiet
 * window is mailed at once; the ones inside a window wait for its end, when a sweep (every replica,
 * every few seconds) sends the digest. A person's window row is locked while their e-mail is queued
 * and advanced in the same transaction, so two replicas never send the same digest, and a restart
 * loses none: what was not sent is still newer than the person's covered id.
 */
@Injectable()
export class HandoffMail implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private sweeping: Promise<unknown> = Promise.resolve();

  constructor(
    @Inject(getDataSourceToken()) private readonly ds: DataSource,
    private readonly people: PeopleAdmin,
    private readonly rpc: RpcClient,
    @Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig,
    @Inject(CONSOLE_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    const everyMs = Math.max(1000, Math.min(30_000, (this.config.handoffMailWindowSeconds * 1000) / 2));
    this.timer = setInterval(() => {
      this.sweeping = this.sweep().catch((err: unknown) => this.logger.warn({ err }, 'handoff mail: sweep failed'));
    }, everyMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.sweeping;
  }

  /** Records a handoff and e-mails whoever of the workspace's owners and admins is out of their window. */
  async notify(req: HandoffNotifyRequest): Promise<number> {
    await this.ds.query(
      `INSERT INTO people.handoff_mail_requests (workspace_id, event_id, session_id, chatbot_id, kind, question)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (event_id) DO NOTHING`,
      [req.workspaceId, req.eventId ?? null, req.sessionId, req.chatbotId ?? null, req.kind, req.question ?? null],
    );
    return this.sendDue(req.workspaceId);
  }

  /** Sends the digests that are due in the workspaces with recent handoffs; the number of e-mails queued. */
  async sweep(): Promise<number> {
    // Only workspaces with a handoff that some owner's or admin's last e-mail did not cover yet.
    const rows = await this.ds.query<{ workspace_id: string }[]>(
      `SELECT DISTINCT r.workspace_id FROM people.handoff_mail_requests r
        WHERE r.created_at > clock_timestamp() - interval '${FIRST_LOOKBACK}'
          AND r.id > coalesce((SELECT min(w.covered_id) FROM people.handoff_mail_windows w WHERE w.workspace_id = r.workspace_id), 0)`,
    );
    let queued = 0;
    for (const { workspace_id } of rows) queued += await this.sendDue(workspace_id);
    await this.ds.query(`DELETE FROM people.handoff_mail_requests WHERE created_at < clock_timestamp() - interval '${KEEP}'`);
    return queued;
  }

  private async sendDue(workspaceId: string): Promise<number> {
    const recipients = (await this.people.listMembers(workspaceId)).filter((m) => m.role === 'owner' || m.role === 'admin');
    if (!recipients.length) return 0;
    let workspaceName: string | undefined;
    let queued = 0;
    for (const person of recipients) {
      const sent = await this.ds.transaction(async (m) => {
        await m.query(
          `INSERT INTO people.handoff_mail_windows (workspace_id, person_id, sent_at, covered_id) VALUES ($1, $2, '-infinity', 0) ON CONFLICT DO NOTHING`,
          [workspaceId, person.person_id],
        );
        const [w] = (await m.query(
          `SELECT sent_at > clock_timestamp() - make_interval(secs => $3) AS recent, covered_id::text
             FROM people.handoff_mail_windows WHERE workspace_id = $1 AND person_id = $2 FOR UPDATE`,
          [workspaceId, person.person_id, this.config.handoffMailWindowSeconds],
        )) as WindowRow[];
        if (!w || w.recent) return false;
        const pending = (await m.query(
          `SELECT id::text, kind, question, count(*) OVER () AS total, max(id) OVER () AS last_id
             FROM people.handoff_mail_requests
            WHERE workspace_id = $1 AND id > $2 AND created_at > clock_timestamp() - interval '${FIRST_LOOKBACK}'
            ORDER BY id LIMIT ${HANDOFF_DIGEST_LISTED}`,
          [workspaceId, w.covered_id],
        )) as { id: string; kind: HandoffKind; question: string | null; total: string; last_id: string }[];
        if (!pending.length) return false;
        workspaceName ??= (await this.rpc.send('identity.workspace.get', { workspaceId })).workspace?.name ?? 'your workspace';
        await this.rpc.send(
          'bookings.email.send',
          handoffDigestEmail({
            publicUrl: this.config.publicUrl,
            to: person.email,
            workspaceId,
            workspaceName,
            items: pending.map((p) => ({ kind: p.kind, question: p.question })),
            total: Number(pending[0]!.total),
          }),
        );
        await m.query(`UPDATE people.handoff_mail_windows SET sent_at = clock_timestamp(), covered_id = $3 WHERE workspace_id = $1 AND person_id = $2`, [
          workspaceId,
          person.person_id,
          pending[0]!.last_id,
        ]);
        return true;
      });
      if (sent) queued++;
    }
    if (queued) this.logger.info({ workspace_id: workspaceId, recipients: queued }, 'handoff: owners and admins e-mailed');
    return queued;
  }
}
