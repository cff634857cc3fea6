import { Injectable } from '@nestjs/common';
import { EventEnvelope, isWebhookEventType } from '@sa/contracts';
import { AfterCommit, EventHandler } from '@sa/events';
import { DeliveryEngine } from './delivery-engine';
import { WorkspaceEntitlements } from './workspace-entitlements';

/**
 * Turns each webhook event into its deliveries with one statement (shared by the events handled
 * at once), whose unique key (event_id, webhook_id) makes a repeat a no-op: an event yields its
 * deliveries exactly once whatever JetStream redelivers or the relay republishes. Those inserted
 * claimed (a slot was free) are sent at once; the pending ones are handed to the engine once the
 * event is handled.
 * Workspaces whose plan has no webhooks get none.
 */
@Injectable()
export class DispatchHandler implements EventHandler {
  constructor(
    private readonly engine: DeliveryEngine,
    private readonly entitlements: WorkspaceEntitlements,
  ) {}

  async handle(event: EventEnvelope): Promise<void | AfterCommit> {
    if (!isWebhookEventType(event.type)) return;
    if (!(await this.entitlements.webhooksEnabled(event.tenant_id))) return;
    const pending = await this.engine.create(event);
    if (pending.length === 0) return;
    return () => this.engine.accept(pending);
  }
}
