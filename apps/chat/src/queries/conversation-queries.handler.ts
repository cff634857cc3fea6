import { Controller, Inject } from '@nestjs/common';
import { BotAccess, enforceBotAccess, visibleBots } from '@sa/bot-access';
import { AnalyticsChannelsRequest, AnalyticsChannelsView, AnalyticsQuestionsRequest, AnalyticsQuestionsView, AnalyticsRequest, AnalyticsView, CONVERSATIONS_LIMIT_DEFAULT, CallerContext, ChatMessageView, ConsoleChatMessageView, ConsoleConversationsRequest, ConversationMessagesRequest, ConversationView } from '@sa/contracts';
import { InsufficientScope, NotFound } from '@sa/errors';
import { RpcClient, RpcHandler } from '@sa/messaging';
import { AnalyticsRepository } from '../analytics/analytics.repository';
import { CHAT_CONFIG, ChatConfig } from '../config/chat.config';
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
    @Inject(CHAT_CONFIG) private readonly config: ChatConfig,
  ) {}

  @RpcHandler('chat.conversation.list')
  async list(req: ConsoleConversationsRequest, ctx: CallerContext): Promise<ConversationView[]> {
    enforceBotAccess(ctx, BotAccess.MayName, req.chatbotId);
    if (req.chatbotId) await this.checkBot(ctx, req.chatbotId);
    return this.conversations.listSessions({
      tenantId: ctx.tenantId,
      chatbotId: req.chatbotId,
      botIds: visibleBots(ctx),
      q: req.q?.trim() || undefined,
      channel: req.channel,
      limit: req.limit ?? CONVERSATIONS_LIMIT_DEFAULT,
    });
  }

  @RpcHandler('chat.conversation.messages')
  async messagesOf(req: ConversationMessagesRequest, ctx: CallerContext): Promise<ChatMessageView[]> {
    const owner = await this.messages.sessionBot(ctx.tenantId, req.sessionId);
    if (owner === undefined) return [];
    enforceBotAccess(ctx, BotAccess.OfResource, owner, { what: 'that session' });
    return this.conversations.messages(ctx.tenantId, req.sessionId);
  }

  /**
   * Issue 32 ("Why this answer"): the console's transcript for owners and admins, each answer with
   * the passages it was given. The console asks only for owners and admins; here, defensively, the
   * caller must be a person (no API token or connection: never the public API) with the
   * owner/admin scopes (the console gives members only the `:read` ones).
   */
  @RpcHandler('chat.conversation.transcript')
  async transcriptOf(req: ConversationMessagesRequest, ctx: CallerContext): Promise<ConsoleChatMessageView[]> {
    if (ctx.tokenId != null || !ctx.scopes.includes('kb:write')) throw new InsufficientScope('kb:write');
    const owner = await this.messages.sessionBot(ctx.tenantId, req.sessionId);
    if (owner === undefined) return [];
    enforceBotAccess(ctx, BotAccess.OfResource, owner, { what: 'that session' });
    return this.conversations.transcript(ctx.tenantId, req.sessionId);
  }

  @RpcHandler('chat.analytics.summary')
  async summary(req: AnalyticsRequest, ctx: CallerContext): Promise<AnalyticsView> {
    enforceBotAccess(ctx, BotAccess.MustName, req.chatbotId);
    if (req.chatbotId) await this.checkBot(ctx, req.chatbotId);
    return this.analytics.summary({ tenantId: ctx.tenantId, chatbotId: req.chatbotId, botIds: visibleBots(ctx) });
  }

  /** Issue 19: top and unanswered questions for the console's Analytics page (the same bot rules as the summary). */
  @RpcHandler('chat.analytics.questions')
  async questions(req: AnalyticsQuestionsRequest, ctx: CallerContext): Promise<AnalyticsQuestionsView> {
    enforceBotAccess(ctx, BotAccess.MustName, req.chatbotId);
    if (req.chatbotId) await this.checkBot(ctx, req.chatbotId);
    return this.analytics.questions({ tenantId: ctx.tenantId, chatbotId: req.chatbotId, botIds: visibleBots(ctx), days: req.days, limit: this.config.analyticsQuestions });
  }

  /** Issue 35: conversations and visitor messages per channel for the console's Analytics page (the same bot rules as the summary). */
  @RpcHandler('chat.analytics.channels')
  async channels(req: AnalyticsChannelsRequest, ctx: CallerContext): Promise<AnalyticsChannelsView> {
    enforceBotAccess(ctx, BotAccess.MustName, req.chatbotId);
    if (req.chatbotId) await this.checkBot(ctx, req.chatbotId);
    return this.analytics.channels({ tenantId: ctx.tenantId, chatbotId: req.chatbotId, botIds: visibleBots(ctx), days: req.days });
  }

  /** A named bot must be a bot of the caller's workspace (404). */
  private async checkBot(ctx: CallerContext, chatbotId: string): Promise<void> {
    const { found } = await this.rpc.send('bots.bot.check', { ids: [chatbotId] }, ctx);
    if (!found.includes(chatbotId)) throw new NotFound('Bot');
  }
}
