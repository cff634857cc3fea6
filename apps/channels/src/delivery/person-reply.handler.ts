import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EventEnvelope } from '@sa/contracts';
import { AfterCommit, EventHandler } from '@sa/events';
import { InboundRepository } from '../inbound/inbound.repository';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveryWorker } from './delivery.worker';

/**
 * conversation.person_reply (chat, issue 35): a person who took a channel's conversation over in
 * the console replied; the reply is queued for the channel it came from, as the answer to the
 * conversation's latest message (one delivery per chat message: a redelivered event queues none).
 */
@Injectable()
export class PersonReplyHandler implements EventHandler {
  constructor(
    private readonly inbound: InboundRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly sender: DeliveryWorker,
  ) {}

  async handle(event: EventEnvelope, m: EntityManager): Promise<void | AfterCommit> {
    const e = event as EventEnvelope<'conversation.person_reply'>;
    const conversation = await this.inbound.conversationOf(e.tenant_id, e.data.session_id);
    if (!conversation) return; // not a conversation of ours (its connection was deleted)
    await this.deliveries.queue(m, {
      connectionId: conversation.connection_id,
      tenantId: e.tenant_id,
      sessionId: e.data.session_id,
      source: `person:${e.data.message_id}`,
      replyTo: conversation.reply_to,
      text: e.data.content,
    });
    return () => this.sender.wake();
  }
}
