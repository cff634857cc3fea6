import { Body, Controller, HttpCode, Inject, Param, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { NatsConnection } from 'nats';
import { BotParams, PlaygroundFrame, PlaygroundTurnBody } from '@sa/contracts';
import { dto, startChatTurn, StreamIdle } from '@sa/edge';
import { ApiLocked, NotFound } from '@sa/errors';
import { hasLiveApiAccess } from '@sa/identity';
import { NATS_CONNECTION, RpcClient } from '@sa/messaging';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { Workspaces } from '../auth/workspaces';
import { CONSOLE_CONFIG, ConsoleConfig } from '../config/console.config';
import { ApiConsoleErrors } from '../openapi/console-responses';

const frame = (f: PlaygroundFrame) => `data: ${JSON.stringify(f)}\n\n`;

/**
 * The playground (issue 32, a bot's page, "Try it"): owners and admins chat with a bot as a
 * visitor would, streamed, with unsaved behaviour if they like. The turn is answered by the chat
 * service like any other but stored and counted nowhere (no conversation, analytics, lead, quota
 * or webhook); its last frame says why the bot answered as it did. Refused without live access
 * (402 `api_locked`), as chat is.
 */
@ApiTags('Bots')
@Controller('api/workspaces/:workspaceId/bots/:botId/playground')
export class PlaygroundController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly workspaces: Workspaces,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig,
  ) {}

  @Post()
  @HttpCode(200)
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'playgroundTurn',
    summary: 'Try a bot (playground)',
    description:
      'One message to the bot, answered as a visitor would be answered, streamed as text/event-stream: `data: {"type":"delta","text":…}` frames, ' +
      '`{"type":"action","action":{call_id,name,label,state,input?}}` frames for the actions it calls (a call that needs confirmation ends the try: nothing is kept to resume), ' +
      'then one `{"type":"end","diagnostics":{…}}` (passages, reply language, unanswered, model, tokens, timings) or `{"type":"error","code","message"}`. ' +
      'Nothing is stored or counted. `behaviour` tries unsaved settings for this turn only.',
  })
  @ApiResponse({ status: 200, description: 'The answer as an event stream.', content: { 'text/event-stream': { schema: { type: 'string' } } } })
  @ApiConsoleErrors(400, 401, 402, 403, 404, 503)
  async turn(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(BotParams, 'path')) params: BotParams,
    @Body(dto(PlaygroundTurnBody, 'body')) body: PlaygroundTurnBody,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const { workspace, ctx } = workspaceOf(caller);
    const facts = await this.workspaces.facts(workspace.id);
    if (!facts) throw new NotFound('Workspace');
    if (!hasLiveApiAccess(facts)) throw new ApiLocked();
    const turn = await startChatTurn(
      this.rpc,
      this.nc,
      ctx,
      { message: body.message, chatbotId: params.botId, language: body.language },
      'console',
      { startTimeoutMs: this.config.chatStartTimeoutMs, idleTimeoutMs: this.config.chatIdleTimeoutMs, lostAfterMs: this.config.rpcLostAfterMs },
      { history: body.history ?? [], behaviour: body.behaviour },
    );
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
    let ended = false;
    raw.on('close', () => {
      if (!ended) turn.cancel();
    });
    try {
      for await (const event of turn.events()) {
        if (event.type === 'delta') raw.write(frame({ type: 'delta', text: event.text }));
        else if (event.type === 'action') raw.write(frame({ type: 'action', action: event.action }));
        else if (event.type === 'end' && event.diagnostics) {
          ended = true;
          raw.write(frame({ type: 'end', diagnostics: event.diagnostics }));
        } else if (event.type === 'error') {
          ended = true;
          raw.write(frame({ type: 'error', code: event.code, message: event.message }));
        }
      }
      if (!ended) raw.write(frame({ type: 'error', code: 'service_unavailable', message: 'The answer stream ended early' }));
    } catch (err) {
      if (!ended) raw.write(frame({ type: 'error', code: 'service_unavailable', message: err instanceof StreamIdle ? err.message : 'The answer stream ended early' }));
    } finally {
      ended = true;
      turn.close();
      raw.end();
    }
  }
}
