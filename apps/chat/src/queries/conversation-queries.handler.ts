import { Controller } from '@nestjs/common';
import { AnalyticsRequest, AnalyticsView, CONVERSATIONS_LIMIT_DEFAULT, CallerContext, ChatMessageView, ConversationMessagesRequest, ConversationView, ListConversationsRequest } from '@sa/contracts';
import { BotAccessDenied, NotFound } from '@sa/errors';
import { RpcClient, RpcHandler } from '@sa/messaging';
import { AnalyticsRepository } from '../analytics/analytics.repository';
import { ConversationsRepository } from '../conversations/conversations.repository';
import { MessagesRepository } from '../conversations/messages.repository';

/**
 * Reads of conversations and analytics, with the bot rules of spec part 5: a restricted token sees
 * only its bots' sessions, gets 403 for another bot's session, and must name an allowed bot for
 * analytics; a bot id must belong to the caller's workspace (404).
 */
@Controller()
export class ConversationQueriesHandler {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly messages: MessagesRepository,
    private readonly analytics: AnalyticsRepository,
    private readonly rpc: RpcClient,
  ) {}

  @RpcHandler('chat.conversation.list')
  async list(req: ListConversationsRequest, ctx: CallerContext): Promise<ConversationView[]> {
    if (req.chatbotId) await this.checkBot(ctx, req.chatbotId);
    return this.conversations.listSessions({
      tenantId: ctx.tenantId,
      chatbotId: req.chatbotId,
      botIds: ctx.botIds ?? undefined,
      q: req.q?.trim() || undefined,
      limit: req.limit ?? CONVERSATIONS_LIMIT_DEFAULT,
    });
  }

  @RpcHandler('chat.conversation.messages')
  async messagesOf(req: ConversationMessagesRequest, ctx: CallerContext): Promise<ChatMessageView[]> {
    const owner = await this.messages.sessionBot(ctx.tenantId, req.sessionId);
    if (owner === undefined) return [];
    if (ctx.botIds && (!owner || !ctx.botIds.includes(owner))) throw new BotAccessDenied('This token may not access that session');
    return this.conversations.messages(ctx.tenantId, req.sessionId);
  }

  @RpcHandler('chat.analytics.summary')
  async summary(req: AnalyticsRequest, ctx: CallerContext): Promise<AnalyticsView> {
    if (ctx.botIds && (!req.chatbotId || !ctx.botIds.includes(req.chatbotId))) throw new BotAccessDenied('A token restricted to specific bots must send an allowed chatbotId');
    if (req.chatbotId) await this.checkBot(ctx, req.chatbotId);
    return this.analytics.summary({ tenantId: ctx.tenantId, chatbotId: req.chatbotId, botIds: ctx.botIds ?? undefined });
  }

  private async checkBot(ctx: CallerContext, chatbotId: string): Promise<void> {
    if (ctx.botIds && !ctx.botIds.includes(chatbotId)) throw new BotAccessDenied();
    const { found } = await this.rpc.send('bots.bot.check', { ids: [chatbotId] }, ctx);
    if (!found.includes(chatbotId)) throw new NotFound('Bot');
  }
}
