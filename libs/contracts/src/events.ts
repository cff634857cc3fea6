/** Internal domain events; each is published on JetStream subject `<prefix>.<type>` (prefix `events` by default). */
export interface BotCreatedEvent {
  bot_id: string;
  name: string;
  language: string;
  slot_kind: string;
  enterprise_plan_tier: string | null;
}

/**
 * Internal: one chat turn was answered and stored. It carries what lead scoring needs: the leads
 * service keeps its own copy of a session's visitor messages from these events, never reading chat.
 */
export interface ChatTurnCompletedEvent {
  session_id: string;
  chatbot_id: string | null;
  channel: string;
  user_message_id: string;
  assistant_message_id: string;
  language: string;
  unanswered: boolean;
  /** The visitor's message of the turn, as stored. */
  user_message: string;
  /** When it was stored (ISO 8601): the order of the session's messages. */
  user_message_at: string;
  /** Issue 35: who wrote, as the channel knows them (the e-mail sender's address, the WhatsApp number): a lead's contact when the turn scores one. */
  contact?: ChannelContact;
}

/**
 * The event chat writes when a person replies in a held conversation of a channel (issue 35, the
 * console's Handoff page): the channels service sends it through the channel it came from.
 */
export const PERSON_REPLY_EVENT = 'conversation.person_reply';
export interface PersonReplyPayload {
  session_id: string;
  chatbot_id: string | null;
  channel: string;
  message_id: string;
  content: string;
}

/** The sender of a channel's message, as the provider names them. */
export interface ChannelContact {
  name?: string | null;
  email?: string | null;
  phone?: string | null;
}

/** Webhook event message.unanswered: the bot had no relevant content for a question. */
export interface MessageUnansweredEvent {
  message_id: string;
  user_message_id: string;
  session_id: string;
  chatbot_id: string | null;
  channel: string;
  question: string;
  language: string;
}

/** Webhook event conversation.handoff: explicit (the visitor asked) or detected (by the model). */
export interface ConversationHandoffEvent {
  session_id: string;
  chatbot_id: string | null;
  channel: string;
  kind: 'explicit' | 'detected';
  reason: string | null;
  message_id: string | null;
  question: string | null;
  language: string | null;
}

/** Webhook event lead.created: exactly the `data` of spec part 6. */
export interface LeadCreatedEvent {
  lead_id: string;
  session_id: string;
  chatbot_id: string;
  score: number;
  band: string;
  category: string;
  summary: string;
  sentiment: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  country: string | null;
  region: string | null;
  external_user_id: string | null;
  qualification: Record<string, string>;
  captured_via: string;
}

/** Webhook event booking.created (payload not shown in the spec: ours). */
export interface BookingCreatedEvent {
  booking_id: string;
  chatbot_id: string | null;
  session_id: string | null;
  name: string;
  email: string;
  phone: string;
  requested_slot: string | null;
  time_zone: string | null;
  country: string | null;
  notes: string | null;
  custom_fields: Record<string, string> | null;
  status: string;
}

/** Webhook event ticket.created (payload not shown in the spec: ours). */
export interface TicketCreatedEvent {
  ticket_id: string;
  session_id: string;
  chatbot_id: string;
  email: string;
  name: string | null;
  subject: string;
  message: string;
}

export interface EventMap {
  'bot.created': BotCreatedEvent;
  'chat.turn.completed': ChatTurnCompletedEvent;
  'message.unanswered': MessageUnansweredEvent;
  'conversation.handoff': ConversationHandoffEvent;
  'lead.created': LeadCreatedEvent;
  'booking.created': BookingCreatedEvent;
  'ticket.created': TicketCreatedEvent;
  /** Issue 35: a person's reply in a held conversation of a channel (channels sends it). */
  'conversation.person_reply': PersonReplyPayload;
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

/** The events customers can subscribe webhooks to (spec part 6); the others are internal. */
export const WEBHOOK_EVENT_TYPES = ['lead.created', 'conversation.handoff', 'message.unanswered', 'ticket.created', 'booking.created'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export function isWebhookEventType(type: string): type is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);
}

/** The bot an event concerns (the scope a one-bot webhook matches), or null. */
export function eventBotId(event: EventEnvelope): string | null {
  const data = event.data as { chatbot_id?: unknown; bot_id?: unknown };
  const id = data.chatbot_id ?? data.bot_id;
  return typeof id === 'string' ? id : null;
}
