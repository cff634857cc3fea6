import { Inject, Injectable } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { EVAL_CHANGE_SUBJECT, EvalChangeNotice } from '@sa/contracts';
import { NATS_CONNECTION } from '@sa/messaging';

/**
 * Tells the evaluations service (issue 33) that a bot may answer differently now: its behaviour
 * or model choice changed (chatbotId), or a model connection bots use changed (chatbotId null:
 * every bot of the workspace). Core NATS, fire and forget; the evaluations service debounces these
 * into automatic runs.
 */
@Injectable()
export class EvalChangePublisher {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  changed(tenantId: string, chatbotId: string | null, cause: 'behaviour' | 'model'): void {
    const notice: EvalChangeNotice = { tenant_id: tenantId, chatbot_id: chatbotId, cause };
    try {
      this.nc.publish(EVAL_CHANGE_SUBJECT, JSON.stringify(notice));
    } catch {
      // NATS closed (shutting down): an automatic run is a convenience, never worth failing the change.
    }
  }
}
