import { Controller, Get, Param, Query } from '@nestjs/common';
import { BotAccess } from '@sa/bot-access';
import { AnalyticsRequest, AnalyticsView, CallerContext, ChatMessageView, ConversationMessagesRequest, ConversationView, ListConversationsRequest } from '@sa/contracts';
import { RpcClient } from '@sa/messaging';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/route-access.decorator';
import { dto } from '../http/dto.pipe';

/** GET /v1/conversations, GET /v1/conversations/{sessionId}, GET /v1/analytics (spec part 4). */
@Controller('v1')
export class ConversationsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get('conversations')
  @RequireScope('conversations:read', { botAccess: { mode: BotAccess.MayName, from: 'query' } })
  async list(@Caller() ctx: CallerContext, @Query(dto(ListConversationsRequest, 'query')) query: ListConversationsRequest): Promise<{ data: ConversationView[] }> {
    return { data: await this.rpc.send('chat.conversation.list', query, ctx) };
  }

  @Get('conversations/:sessionId')
  @RequireScope('conversations:read', { botAccess: { mode: BotAccess.OfResource } })
  async messages(@Caller() ctx: CallerContext, @Param(dto(ConversationMessagesRequest, 'path')) params: ConversationMessagesRequest): Promise<{ data: ChatMessageView[] }> {
    return { data: await this.rpc.send('chat.conversation.messages', params, ctx) };
  }

  @Get('analytics')
  @RequireScope('analytics:read', { botAccess: { mode: BotAccess.MustName, from: 'query' } })
  async analytics(@Caller() ctx: CallerContext, @Query(dto(AnalyticsRequest, 'query')) query: AnalyticsRequest): Promise<{ data: AnalyticsView }> {
    return { data: await this.rpc.send('chat.analytics.summary', query, ctx) };
  }
}
