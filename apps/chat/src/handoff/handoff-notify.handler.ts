import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EventEnvelope } from '@sa/contracts';
import { AfterCommit, EventHandler } from '@sa/events';
import { RpcClient } from '@sa/messaging';

/**
 * conversation.handoff → the console e-mails the workspace's owners and admins (console.handoff.notify,
 * which queues the e-mails in the mail outbox). A failed request is retried by redelivery.
 */
@Injectable()
export class HandoffNotifyHandler implements EventHandler {
  constructor(private readonly rpc: RpcClient) {}

  async handle(event: EventEnvelope, _m: EntityManager): Promise<void | AfterCommit> {
    const e = event as EventEnvelope<'conversation.handoff'>;
    await this.rpc.send('console.handoff.notify', {
      workspaceId: e.tenant_id,
      eventId: e.id,
      sessionId: e.data.session_id,
      chatbotId: e.data.chatbot_id,
      kind: e.data.kind,
      reason: e.data.reason,
      question: e.data.question,
    });
  }
}
