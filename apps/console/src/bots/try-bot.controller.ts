import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { NatsConnection } from 'nats';
import { BotParams, TryBotAnswerView, TryBotRequest, isErrorCode } from '@sa/contracts';
import { dto, startChatTurn, StreamIdle } from '@sa/edge';
import { DomainError, ServiceUnavailable } from '@sa/errors';
import { NATS_CONNECTION, RpcClient } from '@sa/messaging';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { CONSOLE_CONFIG, ConsoleConfig } from '../config/console.config';
import { ApiConsoleErrors, ApiData } from '../openapi/console-responses';

/**
 * Asking a bot from the console (the first-run guide's "Try a question"): one chat turn on the
 * `console` channel, answered whole. It counts toward the monthly message quota and is stored
 * as a conversation like any other, so what the owner tried is there to look at.
 */
@ApiTags('Workspace')
@Controller('api/workspaces/:workspaceId/bots/:botId/try')
export class TryBotController {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig,
  ) {}

  @Post()
  @HttpCode(200)
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'tryBot',
    summary: 'Ask a bot a question',
    description: "The bot's whole answer and the knowledge-base URLs it drew on. Counts toward the monthly message quota (402 `quota_exhausted`) and is stored as a conversation of channel `console`.",
  })
  @ApiData(200, 'The answer.', TryBotAnswerView)
  @ApiConsoleErrors(400, 401, 402, 403, 404, 409, 503)
  async ask(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(BotParams, 'path')) params: BotParams, @Body(dto(TryBotRequest, 'body')) body: TryBotRequest): Promise<{ data: TryBotAnswerView }> {
    const turn = await startChatTurn(this.rpc, this.nc, workspaceOf(caller).ctx, { message: body.message, chatbotId: params.botId, sessionId: body.session_id }, 'console', {
      startTimeoutMs: this.config.chatStartTimeoutMs,
      idleTimeoutMs: this.config.chatIdleTimeoutMs,
      lostAfterMs: this.config.rpcLostAfterMs,
    });
    let answer = '';
    try {
      for await (const event of turn.events()) {
        if (event.type === 'delta') answer += event.text;
        else if (event.type === 'end') return { data: { answer, session_id: turn.started.session_id, source_urls: event.source_urls ?? [], unanswered: event.unanswered } };
        else if (event.type === 'action') continue;
        else if (event.type === 'held') throw new DomainError('conflict', `A person (${event.taken_by}) has taken this conversation over; the bot does not answer until it is handed back.`);
        else throw new DomainError(isErrorCode(event.code) ? event.code : 'service_unavailable', `The answer broke off: ${event.message}`);
      }
      throw new ServiceUnavailable('chat', 'the answer stream ended early');
    } catch (err) {
      if (err instanceof StreamIdle) throw new ServiceUnavailable('chat', err.message);
      throw err;
    } finally {
      turn.close();
    }
  }
}
