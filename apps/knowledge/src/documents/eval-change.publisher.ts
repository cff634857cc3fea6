import { Inject, Injectable } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { EVAL_CHANGE_SUBJECT, EvalChangeNotice } from '@sa/contracts';
import { NATS_CONNECTION } from '@sa/messaging';

/**
 * Tells the evaluations service (issue 33) that a bot's knowledge changed: a document became ready
 * (new, or re-synced with new content), failed for good or vanished taking its chunks, or was
 * deleted. chatbotId null: workspace-wide knowledge, every bot's. Core NATS, fire and forget: the
 * evaluations service debounces these into automatic runs.
 */
@Injectable()
export class EvalChangePublisher {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  knowledgeChanged(tenantId: string, chatbotId: string | null): void {
    const notice: EvalChangeNotice = { tenant_id: tenantId, chatbot_id: chatbotId, cause: 'knowledge' };
    try {
      this.nc.publish(EVAL_CHANGE_SUBJECT, JSON.stringify(notice));
    } catch {
      // NATS closed (shutting down): an automatic run is a convenience, never worth failing the change.
    }
  }
}
