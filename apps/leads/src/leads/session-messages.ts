import { Injectable } from '@nestjs/common';
import { CallerContext, ChatMessageView, Entitlements } from '@sa/contracts';
import { RpcClient } from '@sa/messaging';

/** Where the scorer reads a session's messages (oldest first). */
export interface SessionMessages {
  of(tenantId: string, sessionId: string, requestId: string): Promise<ChatMessageView[]>;
}

export const SESSION_MESSAGES = Symbol('SESSION_MESSAGES');

/**
 * The internal caller context of the leads service's own reads: the workspace of the event, no
 * token, only conversations:read, every bot. The entitlements are placeholders (the chat service
 * does not look at them for reads).
 */
export function internalContext(tenantId: string, requestId: string): CallerContext {
  const entitlements: Entitlements = Object.assign(new Entitlements(), {
    plan: 'enterprise',
    botSlots: 0,
    tierSlots: {},
    messagesPerMonth: 0,
    pagesPerBot: 0,
    widgetMessagesPerBotPerMonth: 0,
    webhooks: false,
  });
  return Object.assign(new CallerContext(), { tenantId, tokenId: null, scopes: ['conversations:read'], botIds: null, requestId: requestId.slice(0, 128), entitlements });
}

/** The session's messages from the chat service (chat.conversation.messages over NATS). */
@Injectable()
export class RpcSessionMessages implements SessionMessages {
  constructor(private readonly rpc: RpcClient) {}

  of(tenantId: string, sessionId: string, requestId: string): Promise<ChatMessageView[]> {
    return this.rpc.send('chat.conversation.messages', { sessionId }, internalContext(tenantId, requestId));
  }
}
