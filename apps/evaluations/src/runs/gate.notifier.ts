import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { backoffMs } from '@sa/backoff';
import { RpcClient } from '@sa/messaging';
import { EVALUATIONS_CONFIG, EvaluationsConfig } from '../config/evaluations.config';
import { EVALUATIONS_LOGGER } from '../evaluations.tokens';
import { serviceContext } from '../service-context';
import { RunsRepository } from './runs.repository';

/** Questions named in the e-mail, at most (EvalNotifyRequest). */
const NEWLY_FAILING_LISTED = 20;
const RETRY = { baseMs: 5000, maxMs: 10 * 60_000 };

/**
 * The gate (issue 33): a run completed under its bot's threshold has its e-mail due
 * (runs.notify_after); this asks the console to e-mail the workspace's owners and admins
 * (console.evaluation.notify) and records notified_at once it did. A console that is down, or
 * slow, is asked again later (backoff), from any replica: the e-mail is not lost.
 */
@Injectable()
export class GateNotifier implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> | null = null;
  private again = false;
  private stopping = false;

  constructor(
    private readonly runs: RunsRepository,
    private readonly rpc: RpcClient,
    @Inject(EVALUATIONS_CONFIG) private readonly config: EvaluationsConfig,
    @Inject(EVALUATIONS_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.wake(), Math.max(this.config.pollMs, 1000));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    await this.sending;
  }

  wake(): void {
    if (this.stopping) return;
    if (this.sending) {
      this.again = true;
      return;
    }
    this.sending = this.sendDue()
      .then(() => undefined)
      .catch((err: unknown) => this.logger.warn({ err: (err as Error).message }, 'sending evaluation gate e-mails failed; will retry'))
      .finally(() => {
        this.sending = null;
        if (this.again && !this.stopping) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Sends every e-mail that is due; the number sent. */
  async sendDue(): Promise<number> {
    let sent = 0;
    for (;;) {
      if (this.stopping) return sent;
      const run = await this.runs.claimNotification((attempts) => backoffMs(attempts, RETRY));
      if (!run) return sent;
      const log = this.logger.child({ run_id: run.id, tenant_id: run.tenant_id, chatbot_id: run.chatbot_id });
      try {
        const ctx = serviceContext(run.tenant_id, `eval-gate-${run.id}`);
        const [bot] = await this.rpc.send('bots.bot.describe', { ids: [run.chatbot_id] }, ctx);
        const newlyFailing = await this.runs.newlyFailing(run.tenant_id, run, NEWLY_FAILING_LISTED);
        const reply = await this.rpc.send('console.evaluation.notify', {
          workspaceId: run.tenant_id,
          chatbotId: run.chatbot_id,
          botName: bot?.name ?? 'your bot',
          runId: run.id,
          passRate: run.pass_rate ?? 0,
          minPassRate: run.min_pass_rate ?? 0,
          newlyFailing,
        });
        await this.runs.notified(run.id);
        sent++;
        log.info({ recipients: reply.sent, pass_rate: run.pass_rate, min_pass_rate: run.min_pass_rate }, 'evaluation run under its gate: owners and admins e-mailed');
      } catch (err) {
        log.warn({ err: (err as Error).message, attempt: run.notify_attempts }, 'the e-mail of an evaluation run under its gate could not be sent; it is tried again later');
      }
    }
  }
}
