import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ActionCountsView, AnalyticsChannelsView, AnalyticsQuestionsView, AnalyticsView, ConsoleAnalyticsQuery, TokenUsageView, WorkspaceParams } from '@sa/contracts';
import { dto } from '@sa/edge';
import { RpcClient } from '@sa/messaging';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { ApiConsoleErrors, ApiData } from '../openapi/console-responses';

/**
 * The Analytics page (issue 19): the figures of GET /v1/analytics (chat.analytics.summary), the
 * top and unanswered questions (chat.analytics.questions), and (issue 32) the tokens per bot and
 * day with the monthly token budget (chat.tokens.usage). Its "Add an answer" posts to the
 * Knowledge page's route (POST …/knowledge/qa, knowledge.document.add-qa).
 * Issue 34 (records): the calls of actions per action over `days` days (chat.analytics.actions);
 * names and numbers only, so members read them too (inputs and results stay in the owners' transcript).
 * Issue 35 (channels): conversations and visitor messages per channel over `days` days (chat.analytics.channels).
 * A bot id of another workspace is 404 (the chat and knowledge services check it).
 */
@ApiTags('Analytics')
@Controller('api/workspaces/:workspaceId/analytics')
export class AnalyticsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'getAnalytics', summary: 'Analytics', description: 'The figures of GET /v1/analytics over the last 30 days: messages per day, top questions, unanswered rate, feedback, sessions.' })
  @ApiData(200, 'The summary.', AnalyticsView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async summary(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Query(dto(ConsoleAnalyticsQuery, 'query')) query: ConsoleAnalyticsQuery,
  ): Promise<{ data: AnalyticsView }> {
    return { data: await this.rpc.send('chat.analytics.summary', { chatbotId: query.bot }, workspaceOf(caller).ctx) };
  }

  @Get('questions')
  @ConsoleRoute('member')
  @ApiOperation({
    operationId: 'getAnalyticsQuestions',
    summary: 'Top and unanswered questions',
    description: 'The most asked questions, and the questions whose latest asking got no answer from the knowledge (the rule of the unanswered rate), over `days` days.',
  })
  @ApiData(200, 'The questions.', AnalyticsQuestionsView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async questions(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Query(dto(ConsoleAnalyticsQuery, 'query')) query: ConsoleAnalyticsQuery,
  ): Promise<{ data: AnalyticsQuestionsView }> {
    return { data: await this.rpc.send('chat.analytics.questions', { chatbotId: query.bot, days: query.days }, workspaceOf(caller).ctx) };
  }

  @Get('tokens')
  @ConsoleRoute('member')
  @ApiOperation({
    operationId: 'getTokenUsage',
    summary: 'Token usage',
    description: "Prompt and completion tokens per bot and day over the last 30 days, as the model's provider reported them (the playground aside), and the workspace's monthly token budget with this month's use.",
  })
  @ApiData(200, 'Tokens per bot and day, and the budget.', TokenUsageView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async tokens(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Query(dto(ConsoleAnalyticsQuery, 'query')) query: ConsoleAnalyticsQuery,
  ): Promise<{ data: TokenUsageView }> {
    return { data: await this.rpc.send('chat.tokens.usage', { chatbotId: query.bot }, workspaceOf(caller).ctx) };
  }

  @Get('actions')
  @ConsoleRoute('member')
  @ApiOperation({
    operationId: 'getActionCounts',
    summary: 'Calls per action',
    description:
      'The calls of actions the bots made in conversations over `days` days (default 30), per action name and source: how many, succeeded, failed, refused, cancelled, ' +
      'still waiting for the visitor, and the average duration of those that ran. Most called first.',
  })
  @ApiData(200, 'Calls per action.', ActionCountsView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async actions(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Query(dto(ConsoleAnalyticsQuery, 'query')) query: ConsoleAnalyticsQuery,
  ): Promise<{ data: ActionCountsView }> {
    return { data: await this.rpc.send('chat.analytics.actions', { chatbotId: query.bot, days: query.days }, workspaceOf(caller).ctx) };
  }

  @Get('channels')
  @ConsoleRoute('member')
  @ApiOperation({
    operationId: 'getChannelCounts',
    summary: 'Conversations per channel',
    description:
      'Per channel (API, widget, MCP, console, e-mail, WhatsApp, Telegram, Slack) over `days` days (default 30): the conversations active in the window ' +
      "(a conversation counts under its first message's channel), the visitor messages and the replies marked unanswered. Busiest first; channels with none are left out.",
  })
  @ApiData(200, 'Conversations and messages per channel.', AnalyticsChannelsView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async channels(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Query(dto(ConsoleAnalyticsQuery, 'query')) query: ConsoleAnalyticsQuery,
  ): Promise<{ data: AnalyticsChannelsView }> {
    return { data: await this.rpc.send('chat.analytics.channels', { chatbotId: query.bot, days: query.days }, workspaceOf(caller).ctx) };
  }
}
