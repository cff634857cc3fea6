import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { backoffMs } from '@sa/backoff';
import { ClaimLoop } from '@sa/db';
import { StreamIdle, startChatTurn } from '@sa/edge';
import { DomainError } from '@sa/errors';
import { NATS_CONNECTION, RpcClient } from '@sa/messaging';
import { counter } from '@sa/metrics';
import { CHANNELS_CONFIG, CHANNELS_LOGGER, ChannelsConfig } from '../config/channels.config';
import { ConnectionsRepository } from '../connections/connections.repository';
import { DeliveriesRepository } from '../delivery/deliveries.repository';
import { DeliveryWorker } from '../delivery/delivery.worker';
import { InboundRepository, InboundRow } from './inbound.repository';
import { WorkspaceContexts } from './workspace-contexts';

const answered = counter({ name: 'sa_channel_messages_total', help: 'Inbound channel messages this replica finished, by kind and outcome (answered, held, failed, retried)', labelNames: ['kind', 'outcome'] as const });

/** Refusals of the chat service that trying again will not change (the quota, the bot gone, bad input): the message is recorded as failed. */
const FINAL_CODES = new Set(['quota_exhausted', 'not_found', 'bot_access_denied', 'validation_failed', 'bad_request', 'forbidden', 'api_locked', 'conflict']);

/** What the turn came to. */
type TurnOutcome = { kind: 'answered'; text: string } | { kind: 'held' } | { kind: 'retry'; reason: string } | { kind: 'failed'; reason: string };

/**
 * Answers stored inbound messages (issue 35), CHANNELS_CONCURRENCY at a time per replica, each
 * claimed under a lease: a chat turn of the bot through the real chat path (channel = the
 * connection's kind, the session of the external conversation, the provider's message id, the
 * sender as contact), then, in one transaction, the message marked answered and its reply queued
 * for the DeliveryWorker. A replica killed mid-answer leaves the message claimed until its lease
 * lapses; the next try asks chat again with the same provider message id, and chat streams back
 * the reply it stored (or, if it stored none, answers): so nothing is lost and nothing is answered
 * twice.
 */
@Injectable()
export class AnswerWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly workerId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private readonly loops: ClaimLoop<InboundRow>[];
  private readonly inFlight = new Map<string, AbortController>();

  constructor(
    private readonly inbound: InboundRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly connections: ConnectionsRepository,
    private readonly contexts: WorkspaceContexts,
    private readonly sender: DeliveryWorker,
    private readonly rpc: RpcClient,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(CHANNELS_CONFIG) private readonly config: ChannelsConfig,
    @Inject(CHANNELS_LOGGER) private readonly logger: Logger,
  ) {
    this.loops = Array.from(
      { length: config.concurrency },
      () =>
        new ClaimLoop<InboundRow>({
          pollMs: config.pollMs,
          claim: () => this.inbound.claim(this.workerId, config.leaseMs),
          work: (row) => this.answer(row),
          onError: (err) => this.logger.warn({ err: err.message }, 'looking for channel messages to answer failed; will retry'),
        }),
    );
  }

  onApplicationBootstrap(): void {
    for (const loop of this.loops) loop.start();
  }

  /** On shutdown: turns in flight are cut short and their messages handed back at once (answered after the restart, or by another replica). */
  async beforeApplicationShutdown(): Promise<void> {
    const stopped = Promise.all(this.loops.map((l) => l.stop()));
    for (const abort of this.inFlight.values()) abort.abort();
    await stopped;
  }

  /** New messages were stored: look for work at once. */
  wake(): void {
    for (const loop of this.loops) void loop.pump();
  }

  private async answer(row: InboundRow): Promise<boolean> {
    const log = this.logger.child({ inbound_id: row.id, connection_id: row.connection_id, kind: row.kind, tenant_id: row.tenant_id });
    const abort = new AbortController();
    this.inFlight.set(row.id, abort);
    try {
      const outcome = await this.turn(row, abort.signal);
      if (abort.signal.aborted) {
        await this.inbound.release(row.id, this.workerId);
        return true;
      }
      if (outcome.kind === 'answered') {
        const kept = await this.inbound.transaction(async (m) => {
          if (!(await this.inbound.finish(m, row.id, this.workerId, 'answered'))) return false;
          await this.deliveries.queue(m, { connectionId: row.connection_id, tenantId: row.tenant_id, sessionId: row.session_id, source: `inbound:${row.id}`, replyTo: row.reply_to, text: outcome.text });
          return true;
        });
        if (kept) this.sender.wake();
      } else if (outcome.kind === 'held') {
        await this.inbound.transaction((m) => this.inbound.finish(m, row.id, this.workerId, 'held'));
      } else if (outcome.kind === 'failed' || row.attempts >= this.config.answerAttempts) {
        const reason = outcome.reason;
        await this.inbound.transaction((m) => this.inbound.finish(m, row.id, this.workerId, 'failed', reason));
        await this.connections.markError(row.connection_id, `A message could not be answered: ${reason}`);
        log.warn({ reason, attempts: row.attempts }, 'a channel message could not be answered');
      } else {
        await this.inbound.retryLater(row.id, this.workerId, backoffMs(row.attempts, { baseMs: this.config.retryBaseMs, maxMs: this.config.retryMaxMs }), outcome.reason);
      }
      answered.inc({ kind: row.kind, outcome: outcome.kind === 'retry' && row.attempts < this.config.answerAttempts ? 'retried' : outcome.kind === 'retry' ? 'failed' : outcome.kind });
      return true;
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'answering a channel message failed; it is tried again later');
      await this.inbound.retryLater(row.id, this.workerId, backoffMs(row.attempts, { baseMs: this.config.retryBaseMs, maxMs: this.config.retryMaxMs }), 'internal error').catch(() => undefined);
      return false;
    } finally {
      this.inFlight.delete(row.id);
    }
  }

  /** One chat turn for the message; its reply collected whole (a channel sends whole messages). */
  private async turn(row: InboundRow, signal: AbortSignal): Promise<TurnOutcome> {
    const ctx = await this.contexts.for(row.tenant_id, `channel-${row.id}`);
    if (!ctx) return { kind: 'failed', reason: 'the workspace has no live access' };
    let text = '';
    try {
      const turn = await startChatTurn(
        this.rpc,
        this.nc,
        ctx,
        {
          message: row.text,
          chatbotId: row.chatbot_id,
          sessionId: row.session_id,
          provider_message_id: row.provider_message_id,
          contact: { name: row.sender.name ?? null, email: row.sender.email ?? null, phone: row.sender.phone ?? null },
        },
        row.kind,
        { startTimeoutMs: this.config.chatStartTimeoutMs, idleTimeoutMs: this.config.chatIdleTimeoutMs, lostAfterMs: this.config.rpcLostAfterMs },
      );
      const onAbort = () => turn.close();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        for await (const event of turn.events()) {
          if (event.type === 'delta') text += event.text;
          else if (event.type === 'end') return text.trim() ? { kind: 'answered', text } : { kind: 'failed', reason: 'the answer was empty' };
          else if (event.type === 'held') return { kind: 'held' };
          else if (event.type === 'error') {
            // Stored: what was produced is the turn's answer (chat counted it); not stored: ask again.
            if (event.stored && text.trim()) return { kind: 'answered', text };
            return { kind: 'retry', reason: event.message };
          }
        }
      } finally {
        signal.removeEventListener('abort', onAbort);
        turn.close();
      }
      return { kind: 'retry', reason: 'the answer stream ended early' };
    } catch (err) {
      if (err instanceof DomainError) return FINAL_CODES.has(err.code) ? { kind: 'failed', reason: err.message } : { kind: 'retry', reason: err.message };
      if (err instanceof StreamIdle) return { kind: 'retry', reason: err.message };
      throw err;
    }
  }
}
