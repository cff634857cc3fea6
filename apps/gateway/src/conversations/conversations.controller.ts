import { Controller, Get, Param, Query } from '@nestjs/common';
import { AnalyticsRequest, AnalyticsView, CallerContext, ChatMessageView, ConversationMessagesRequest, ConversationView, ListConversationsRequest } from '@sa/contracts';
import { BotAccessDenied } from '@sa/errors';
import { RpcClient } from '@sa/messaging';
import { checkBotAccess } from '@sa/edge';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/route-access.decorator';
import { dto } from '../http/dto.pipe';

/** GET /v1/conversations, GET /v1/conversations/{sessionId}, GET /v1/analytics (spec part 4). */
@Controller('v1')
export class ConversationsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get('conversations')
  @RequireScope('conversations:read')
  async list(@Caller() ctx: CallerContext, @Query(dto(ListConversationsRequest, 'query')) query: ListConversationsRequest): Promise<{ data: ConversationView[] }> {
    // A restricted token without chatbotId sees the sessions of its own bots only (filtered by the chat service).
    if (ctx.botIds && query.chatbotId && !ctx.botIds.includes(query.chatbotId)) throw new BotAccessDenied();
    return { data: await this.rpc.send('chat.conversation.list', query, ctx) };
  }

  @Get('conversations/:sessionId')
  @RequireScope('conversations:read')
  async messages(@Caller() ctx: CallerContext, @Param(dto(ConversationMessagesRequest, 'path')) params: ConversationMessagesRequest): Promise<{ data: ChatMessageView[] }> {
    return { data: await this.rpc.send('chat.conversation.messages', params, ctx) };
  }

  @Get('analytics')
  @RequireScope('analytics:read')
  async analytics(@Caller() ctx: CallerContext, @Query(dto(AnalyticsRequest, 'query')) query: AnalyticsRequest): Promise<{ data: AnalyticsView }> {
    checkBotAccess(ctx, query.chatbotId, 'query');
    return { data: await this.rpc.send('chat.analytics.summary', query, ctx) };
  }
}
