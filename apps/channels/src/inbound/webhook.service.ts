import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { CHANNEL_WEBHOOK_BODY_MAX, ChannelWebhookReply, ChannelWebhookRequest } from '@sa/contracts';
import { counter } from '@sa/metrics';
import { CHANNELS_LOGGER } from '../config/channels.config';
import { ConnectionsRepository } from '../connections/connections.repository';
import { ConnectionsService } from '../connections/connections.service';
import { WEBHOOK_PROVIDERS } from '../providers/registry';
import { InboundRepository } from './inbound.repository';
import { AnswerWorker } from './answer.worker';

const received = counter({ name: 'sa_channel_webhooks_total', help: 'Provider webhook requests, by kind and outcome (accepted, refused, handshake, unknown)', labelNames: ['kind', 'outcome'] as const });

const NOT_FOUND: ChannelWebhookReply = { status: 404, body: '{"error":"not_found"}', content_type: 'application/json' };

/**
 * A provider's webhook request (issue 35), forwarded by the gateway byte for byte: the connection's
 * adapter checks its signature or secret token with the connection's credentials (opened here
 * only) and parses it; accepted messages are stored (idempotent on the provider's message id)
 * before the provider gets its 200, and answered afterwards by the AnswerWorker, so a provider's
 * deadline never waits on a model and nothing is lost if a service dies in between.
 */
@Injectable()
export class WebhookService {
  constructor(
    private readonly connections: ConnectionsRepository,
    private readonly service: ConnectionsService,
    private readonly inbound: InboundRepository,
    private readonly worker: AnswerWorker,
    @Inject(CHANNELS_LOGGER) private readonly logger: Logger,
  ) {}

  async receive(req: ChannelWebhookRequest): Promise<ChannelWebhookReply> {
    const conn = await this.connections.byId(req.connectionId);
    // An unknown connection, one of another kind, or one turned off: the same 404.
    if (!conn || conn.kind !== req.kind || !conn.enabled) {
      received.inc({ kind: req.kind, outcome: 'unknown' });
      return NOT_FOUND;
    }
    const body = Buffer.from(req.body_base64, 'base64');
    if (body.length > CHANNEL_WEBHOOK_BODY_MAX) return { status: 413, body: '{"error":"payload_too_large"}', content_type: 'application/json' };
    const provider = WEBHOOK_PROVIDERS[req.kind];
    const outcome = provider.receive(
      { id: conn.id, settings: conn.settings, secrets: this.service.openSecrets(conn) },
      { method: req.method, query: req.query, headers: req.headers, body, receivedAt: Date.now() },
    );
    if (outcome.kind === 'respond') {
      const refused = outcome.status === 401 || outcome.status === 403;
      received.inc({ kind: req.kind, outcome: refused ? 'refused' : 'handshake' });
      if (refused) this.logger.info({ connection_id: conn.id, kind: conn.kind, status: outcome.status }, 'a channel webhook request was refused (signature or secret token)');
      return { status: outcome.status, body: outcome.body, content_type: outcome.contentType ?? 'text/plain; charset=utf-8' };
    }
    const added = await this.inbound.transaction(async (m) => {
      const n = await this.inbound.store(m, conn, outcome.messages);
      if (outcome.messages.length) await this.connections.markWorked(conn.id, 'inbound', m);
      return n;
    });
    received.inc({ kind: req.kind, outcome: 'accepted' });
    if (added) this.worker.wake();
    return { status: 200, body: outcome.body ?? '', content_type: outcome.contentType ?? 'text/plain; charset=utf-8' };
  }
}
