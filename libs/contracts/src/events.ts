/** Internal domain events; each is published on JetStream subject `<prefix>.<type>` (prefix `events` by default). */
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

/** The JetStream stream that carries the events, and the prefix of its subjects (`events.>`). */
export const DEFAULT_EVENT_STREAM = 'SA_EVENTS';
export const DEFAULT_EVENT_SUBJECT_PREFIX = 'events';

/** `eventSubject('events', 'bot.created')` is `events.bot.created`. */
export function eventSubject(prefix: string, type: EventType | string): string {
  return `${prefix}.${type}`;
}
