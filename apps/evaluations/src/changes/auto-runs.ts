import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { NatsConnection, Subscription } from 'nats';
import type { Logger } from 'pino';
import { EVAL_CHANGE_SUBJECT, EvalChangeNotice } from '@sa/contracts';
import { hasLiveApiAccess, workspaceFactsFromView } from '@sa/identity';
import { NATS_CONNECTION, RpcClient } from '@sa/messaging';
import { EVALUATIONS_CONFIG, EvaluationsConfig } from '../config/evaluations.config';
import { EVALUATIONS_LOGGER } from '../evaluations.tokens';
import { RunWorker } from '../runs/run.worker';
import { RunsRepository } from '../runs/runs.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CAUSES: ReadonlySet<string> = new Set(['knowledge', 'behaviour', 'model']);
/** Due bots started per look. */
const DUE_BATCH = 50;

/** A notice as published (EvalChangeNotice), or null for anything else on the subject. */
export function parseNotice(data: Uint8Array): EvalChangeNotice | null {
  try {
    const v = JSON.parse(Buffer.from(data).toString('utf8')) as Partial<EvalChangeNotice>;
    if (typeof v.tenant_id !== 'string' || !UUID.test(v.tenant_id)) return null;
    if (v.chatbot_id !== null && (typeof v.chatbot_id !== 'string' || !UUID.test(v.chatbot_id))) return null;
    if (typeof v.cause !== 'string' || !CAUSES.has(v.cause)) return null;
    return { tenant_id: v.tenant_id, chatbot_id: v.chatbot_id, cause: v.cause };
  } catch {
    return null;
  }
}

/**
 * Automatic runs (issue 33): knowledge and bots publish `evaluations.change` (core NATS) when a
 * change can change answers; one replica (queue group `evaluations`) hears each and makes the
 * bot's automatic run due EVAL_AUTO_DEBOUNCE_MS later (pushed out by further changes, at most
 * five debounce periods after the first). The due time is kept in PostgreSQL, so a restart loses
 * none; every replica looks for due runs each EVAL_POLL_MS (and at the due time it scheduled).
 * A due run starts for a bot with auto_run on, at least one case, and a workspace with live access.
 */
@Injectable()
export class AutoRuns implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private subscription: Subscription | null = null;
  private poller: NodeJS.Timeout | null = null;
  private readonly timers = new Set<NodeJS.Timeout>();
  private starting: Promise<void> | null = null;
  private stopping = false;

  constructor(
    private readonly runs: RunsRepository,
    private readonly worker: RunWorker,
    private readonly rpc: RpcClient,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(EVALUATIONS_CONFIG) private readonly config: EvaluationsConfig,
    @Inject(EVALUATIONS_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.subscription = this.nc.subscribe(EVAL_CHANGE_SUBJECT, {
      queue: 'evaluations',
      callback: (err, msg) => {
        if (err) return;
        const notice = parseNotice(msg.data);
        if (notice) void this.heard(notice);
      },
    });
    this.poller = setInterval(() => this.startDue(), this.config.pollMs);
    this.startDue();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.subscription?.unsubscribe();
    if (this.poller) clearInterval(this.poller);
    for (const t of this.timers) clearTimeout(t);
    await this.starting;
  }

  async heard(notice: EvalChangeNotice): Promise<void> {
    try {
      const bots = await this.runs.schedule(notice.tenant_id, notice.chatbot_id, notice.cause, this.config.autoDebounceMs);
      if (!bots) return;
      this.logger.debug({ tenant_id: notice.tenant_id, chatbot_id: notice.chatbot_id, cause: notice.cause, bots }, 'automatic evaluation run scheduled');
      const t = setTimeout(() => {
        this.timers.delete(t);
        this.startDue();
      }, this.config.autoDebounceMs + 50);
      this.timers.add(t);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, tenant_id: notice.tenant_id }, 'could not schedule an automatic evaluation run');
    }
  }

  /** Starts the automatic runs that are due (one pass at a time per process). */
  startDue(): void {
    if (this.stopping || this.starting) return;
    this.starting = this.startDueNow()
      .catch((err: unknown) => this.logger.warn({ err: (err as Error).message }, 'starting due automatic evaluation runs failed; will retry'))
      .finally(() => (this.starting = null));
  }

  private async startDueNow(): Promise<void> {
    const due = await this.runs.dueAutomatic(DUE_BATCH);
    const access = new Map<string, boolean>();
    let started = 0;
    for (const { tenant_id, chatbot_id } of due) {
      if (this.stopping) break;
      let allowed = access.get(tenant_id);
      if (allowed === undefined) {
        // The workspace's live access, asked of the gateway's identity service; not answering: left due, tried again.
        const reply = await this.rpc.send('identity.workspace.get', { workspaceId: tenant_id }).catch(() => null);
        if (!reply) continue;
        allowed = reply.workspace !== null && hasLiveApiAccess(workspaceFactsFromView(reply.workspace));
        access.set(tenant_id, allowed);
      }
      const run = await this.runs.startDue(tenant_id, chatbot_id, this.config.runTokenBudget, allowed);
      if (run) {
        started++;
        this.logger.info({ run_id: run.id, tenant_id, chatbot_id, trigger: run.trigger }, 'automatic evaluation run queued');
      }
    }
    if (started) this.worker.wake();
  }
}
