import { Controller, Get, Param, Query } from '@nestjs/common';
import { BotAccess } from '@sa/bot-access';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AnalyticsRequest, AnalyticsView, CallerContext, ChatMessageView, ConversationMessagesRequest, ConversationView, LIST_LIMIT_MAX, ListConversationsRequest } from '@sa/contracts';
import { RpcClient } from '@sa/messaging';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/route-access.decorator';
import { dto } from '../http/dto.pipe';
import { ApiData, ApiTokenErrors } from '../openapi/api-responses';

/** GET /v1/conversations, GET /v1/conversations/{sessionId}, GET /v1/analytics (spec part 4). */
@ApiTokenErrors()
@Controller('v1')
export class ConversationsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get('conversations')
  @RequireScope('conversations:read', { botAccess: { mode: BotAccess.MayName, from: 'query' } })
  @ApiTags('Conversations')
  @ApiOperation({ operationId: 'listConversations', summary: 'List conversation sessions', description: 'Lists conversation sessions.' })
  @ApiData(200, 'The sessions.', [ConversationView], { maxItems: LIST_LIMIT_MAX })
  async list(@Caller() ctx: CallerContext, @Query(dto(ListConversationsRequest, 'query')) query: ListConversationsRequest): Promise<{ data: ConversationView[] }> {
    return { data: await this.rpc.send('chat.conversation.list', query, ctx) };
  }

  @Get('conversations/:sessionId')
  @RequireScope('conversations:read', { botAccess: { mode: BotAccess.OfResource } })
  @ApiTags('Conversations')
  @ApiOperation({
    operationId: 'getConversation',
    summary: 'Get the messages of a session',
    description: 'Returns the messages of a session. A session that does not exist can yield an empty array. A restricted token may get 403 for a session it cannot access.',
  })
  @ApiData(200, 'The messages.', [ChatMessageView])
  async messages(@Caller() ctx: CallerContext, @Param(dto(ConversationMessagesRequest, 'path')) params: ConversationMessagesRequest): Promise<{ data: ChatMessageView[] }> {
    return { data: await this.rpc.send('chat.conversation.messages', params, ctx) };
  }

  @Get('analytics')
  @RequireScope('analytics:read', { botAccess: { mode: BotAccess.MustName, from: 'query' } })
  @ApiTags('Analytics')
  @ApiOperation({ operationId: 'getAnalytics', summary: 'Get analytics', description: 'Returns a summary of the last 30 days.' })
  @ApiData(200, 'The summary.', AnalyticsView)
  async analytics(@Caller() ctx: CallerContext, @Query(dto(AnalyticsRequest, 'query')) query: AnalyticsRequest): Promise<{ data: AnalyticsView }> {
    return { data: await this.rpc.send('chat.analytics.summary', query, ctx) };
  }
}
