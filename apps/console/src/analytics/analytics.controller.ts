import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AddAnswerBody, AnalyticsQuestionsView, AnalyticsView, ConsoleAnalyticsQuery, KbDocumentView, WorkspaceParams } from '@sa/contracts';
import { dto } from '@sa/edge';
import { RpcClient } from '@sa/messaging';
import { ConsoleAudit } from '../audit/console-audit';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { ApiConsoleErrors, ApiData } from '../openapi/console-responses';

/**
 * The Analytics page (issue 19): the figures of GET /v1/analytics (chat.analytics.summary), the
 * top and unanswered questions (chat.analytics.questions), and "Add an answer", which stores a
 * Q&A knowledge document (knowledge.document.add-qa) so the next chat answers the question.
 * A bot id of another workspace is 404 (the chat and knowledge services check it).
 */
@ApiTags('Analytics')
@Controller('api/workspaces/:workspaceId/analytics')
export class AnalyticsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: ConsoleAudit,
  ) {}

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

  @Post('answers')
  @HttpCode(201)
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'addAnswer',
    summary: 'Add an answer',
    description: 'Stores the question and its answer as a Q&A knowledge document (`source_type: qa`), retrieved whole from the next chat on. Counts one page against the quota (402 when it is used up).',
  })
  @ApiData(201, 'The Q&A document.', KbDocumentView)
  @ApiConsoleErrors(400, 401, 402, 403, 404, 503)
  async addAnswer(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Body(dto(AddAnswerBody, 'body')) body: AddAnswerBody,
  ): Promise<{ data: KbDocumentView }> {
    const doc = await this.rpc.send('knowledge.document.add-qa', { question: body.question, answer: body.answer, chatbotId: body.chatbot_id }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'knowledge.qa_added', 'document', doc.id, { question: doc.title, chatbot_id: doc.chatbot_id ?? null });
    return { data: doc };
  }
}
