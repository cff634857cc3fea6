import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HandoffConversationView, HandoffMessageView, HandoffParams, HandoffPerson, HandoffQueueQuery, HandoffReplyBody, HandoffView, WorkspaceParams } from '@sa/contracts';
import { dto } from '@sa/edge';
import { RpcClient } from '@sa/messaging';
import { ConsoleAudit } from '../audit/console-audit';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { ApiConsoleErrors, ApiData, ApiList } from '../openapi/console-responses';

/** The person acting, as the visitor sees them: their display name, else their e-mail address. */
export function personOf(caller: ConsoleCallerInfo): HandoffPerson {
  const label = (caller.person.display_name || caller.person.email).replace(/[\r\n\u2028\u2029]+/g, ' ').trim().slice(0, 200);
  return { id: caller.person.id, label: label || caller.person.email.slice(0, 200) };
}

/**
 * Handoff (issue 19): everyone reads the queue of conversations that asked for a person and their
 * transcripts; owners and admins take one over (the bot stays silent for it), reply (the visitor's
 * widget shows it live) and hand it back. The chat service keeps the queue (chat.handoff.*) and
 * checks the session is the workspace's (another workspace's is 404). The reply text is not audited.
 */
@ApiTags('Handoff')
@Controller('api/workspaces/:workspaceId/handoffs')
export class HandoffController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: ConsoleAudit,
  ) {}

  @Get()
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'listHandoffs', summary: 'The handoff queue', description: 'Conversations waiting for a person or held by one, oldest request first; with `include=all`, also the ones handed back.' })
  @ApiList('The queue.', HandoffView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async list(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Query(dto(HandoffQueueQuery, 'query')) query: HandoffQueueQuery,
  ): Promise<{ data: HandoffView[] }> {
    return { data: await this.rpc.send('chat.handoff.queue', { include: query.include ?? 'open' }, workspaceOf(caller).ctx) };
  }

  @Get(':sessionId')
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'getHandoff', summary: 'A handed-off conversation', description: 'The handoff and the transcript, oldest message first; replies a person wrote are marked `author_kind: person`.' })
  @ApiData(200, 'The conversation.', HandoffConversationView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async get(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(HandoffParams, 'path')) params: HandoffParams): Promise<{ data: HandoffConversationView }> {
    return { data: await this.rpc.send('chat.handoff.get', { sessionId: params.sessionId }, workspaceOf(caller).ctx) };
  }

  @Post(':sessionId/take')
  @HttpCode(200)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'takeHandoff', summary: 'Take over', description: 'You answer the visitor from now on; the bot stays silent for this conversation. Held by another person: 409 `conflict`.' })
  @ApiData(200, 'The handoff, taken by you.', HandoffView)
  @ApiConsoleErrors(400, 401, 403, 404, 409, 503)
  async take(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(HandoffParams, 'path')) params: HandoffParams): Promise<{ data: HandoffView }> {
    const taken = await this.rpc.send('chat.handoff.take', { sessionId: params.sessionId, person: personOf(caller) }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'handoff.taken', 'conversation', params.sessionId, { chatbot_id: taken.chatbot_id });
    return { data: taken };
  }

  @Post(':sessionId/reply')
  @HttpCode(201)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'replyHandoff', summary: 'Reply to the visitor', description: 'Stored as a message of the conversation (role `assistant`, written by you); an open widget shows it at once. Only the person holding the conversation replies (else 409 `conflict`).' })
  @ApiData(201, 'The stored reply.', HandoffMessageView)
  @ApiConsoleErrors(400, 401, 403, 404, 409, 503)
  async reply(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(HandoffParams, 'path')) params: HandoffParams,
    @Body(dto(HandoffReplyBody, 'body')) body: HandoffReplyBody,
  ): Promise<{ data: HandoffMessageView }> {
    const message = await this.rpc.send('chat.handoff.reply', { sessionId: params.sessionId, person: personOf(caller), text: body.text }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'handoff.replied', 'conversation', params.sessionId, { message_id: message.id });
    return { data: message };
  }

  @Post(':sessionId/release')
  @HttpCode(200)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'releaseHandoff', summary: 'Hand back', description: 'The bot answers this conversation again. Any owner or admin may hand back; a conversation already handed back stays as it is.' })
  @ApiData(200, 'The handoff, handed back.', HandoffView)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async release(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(HandoffParams, 'path')) params: HandoffParams): Promise<{ data: HandoffView }> {
    const released = await this.rpc.send('chat.handoff.release', { sessionId: params.sessionId, person: personOf(caller) }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'handoff.released', 'conversation', params.sessionId, { chatbot_id: released.chatbot_id });
    return { data: released };
  }
}
