import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@sa/contracts';

export interface ChatTurnOptions {
  chatbotId?: string | null;
  /** `api` unless given. */
  channel?: string;
  /** When the visitor's message was stored; now unless given. */
  at?: Date;
}

/** A chat.turn.completed event as the chat service writes it for one answered turn, with fresh ids. */
export function chatTurnCompleted(tenantId: string, sessionId: string, userMessage: string, opts: ChatTurnOptions = {}): EventEnvelope<'chat.turn.completed'> {
  const at = opts.at ?? new Date();
  return {
    id: randomUUID(),
    type: 'chat.turn.completed',
    tenant_id: tenantId,
    occurred_at: at.toISOString(),
    data: {
      session_id: sessionId,
      chatbot_id: opts.chatbotId ?? null,
      channel: opts.channel ?? 'api',
      user_message_id: randomUUID(),
      assistant_message_id: randomUUID(),
      language: 'en',
      unanswered: false,
      user_message: userMessage,
      user_message_at: at.toISOString(),
    },
  };
}
