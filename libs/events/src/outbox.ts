import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { EventEnvelope, EventMap, EventType } from '@sa/contracts';
import { qualifiedTable } from './outbox-sql';

/**
 * Writes events into a service's outbox table. Pass the EntityManager of the transaction that
 * makes the change the event describes: the event then exists if and only if the change commits,
 * and the OutboxRelay publishes it after the commit.
 */
export class Outbox {
  private readonly table: string;

  constructor(readonly schema: string) {
    this.table = qualifiedTable(schema, 'outbox');
  }

  async add<T extends EventType>(manager: EntityManager, type: T, tenantId: string, data: EventMap[T]): Promise<EventEnvelope<T>> {
    const envelope: EventEnvelope<T> = { id: randomUUID(), type, tenant_id: tenantId, occurred_at: new Date().toISOString(), data };
    await manager.query(`INSERT INTO ${this.table} (id, type, tenant_id, payload) VALUES ($1, $2, $3, $4)`, [
      envelope.id,
      type,
      tenantId,
      JSON.stringify(envelope),
    ]);
    return envelope;
  }
}
