/** Roles and feedback values of chat.messages (spec part 2, ChatMessage). */
export const CHAT_ROLES = ['user', 'assistant'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];
export const CHAT_FEEDBACK = ['positive', 'negative'] as const;
export type ChatFeedback = (typeof CHAT_FEEDBACK)[number];

/** Conversation and ChatMessage of spec part 2: one definition, in the contracts lib. */
export type { ChatMessageView, ConversationView } from '@sa/contracts';
import type { ChatMessageView } from '@sa/contracts';

/** A chat.messages row as selected with MESSAGE_COLUMNS. */
export interface ChatMessageRow {
  id: string;
  tenant_id: string;
  chatbot_id: string | null;
  session_id: string;
  role: ChatRole;
  content: string;
  feedback: ChatFeedback | null;
  source_urls: string[] | null;
  channel: string;
  provider_message_id: string | null;
  created_at: Date;
}

export const MESSAGE_COLUMNS = 'id, tenant_id, chatbot_id, session_id, role, content, feedback, source_urls, channel, provider_message_id, created_at';

/**
 * Chronological order of messages: time, then the user's message before the reply it got (both
 * turns of an exchange are inserted by one statement and may share a timestamp), then id.
 */
export const MESSAGE_ORDER = `created_at, CASE role WHEN 'user' THEN 0 ELSE 1 END, id`;
export const MESSAGE_ORDER_DESC = `created_at DESC, CASE role WHEN 'user' THEN 0 ELSE 1 END DESC, id DESC`;

export function toChatMessageView(r: ChatMessageRow): ChatMessageView {
  return {
    id: r.id,
    tenant_id: r.tenant_id,
    chatbot_id: r.chatbot_id,
    session_id: r.session_id,
    role: r.role,
    content: r.content,
    feedback: r.feedback,
    source_urls: r.source_urls,
    channel: r.channel,
    provider_message_id: r.provider_message_id,
    created_at: r.created_at.toISOString(),
  };
}
