/** Internal domain events; each is published on JetStream subject `events.<type>`. */
export interface BotCreatedEvent {
  bot_id: string;
  name: string;
  language: string;
  slot_kind: string;
  enterprise_plan_tier: string | null;
}

export interface EventMap {
  'bot.created': BotCreatedEvent;
}

export type EventType = keyof EventMap;

/** The envelope stored in the outbox and carried on JetStream. `id` is also the Nats-Msg-Id. */
export interface EventEnvelope<T extends EventType = EventType> {
  id: string;
  type: T;
  tenant_id: string;
  occurred_at: string;
  data: EventMap[T];
}

export const EVENT_SUBJECT_PREFIX = 'events.';

export function eventSubject(type: EventType | string): string {
  return `${EVENT_SUBJECT_PREFIX}${type}`;
}
