import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ActionCallRecordView, ConsoleChatMessageView, ConsoleConversationsRequest, ConversationDetailView, ConversationParams, ConversationView, SessionActionCall, WorkspaceParams } from '@sa/contracts';
import { dto } from '@sa/edge';
import { NotFound } from '@sa/errors';
import { RpcClient } from '@sa/messaging';
import { roleAtLeast } from '@sa/people';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { ApiConsoleErrors, ApiData, ApiList } from '../openapi/console-responses';

/**
 * Conversations (issue 19): every member reads the sessions (search `q`, channel and bot filters:
 * chat.conversation.list) and one session's transcript with its sources, feedback and lead.
 * Issue 32 ("Why this answer"): owners and admins get each bot answer's passages
 * (chat.conversation.transcript); members get the messages without a `passages` member
 * (chat.conversation.messages, as the public API). Issue 34 (records): owners and admins also get the
 * action calls recorded with each answer (`actions`, chat.conversation.action-calls); members never.
 */
@ApiTags('Conversations')
@Controller('api/workspaces/:workspaceId/conversations')
export class ConversationsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'listConversations', summary: 'List conversations', description: 'Sessions, most recent activity first; `q` searches their messages.' })
  @ApiList('The sessions.', ConversationView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async list(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Query(dto(ConsoleConversationsRequest, 'query')) query: ConsoleConversationsRequest,
  ): Promise<{ data: ConversationView[] }> {
    return { data: await this.rpc.send('chat.conversation.list', query, workspaceOf(caller).ctx) };
  }

  @Get(':sessionId')
  @ConsoleRoute('member')
  @ApiOperation({
    operationId: 'getConversation',
    summary: 'A conversation',
    description:
      "The session's messages (oldest first, with sources and feedback) and its lead, if any. A session with neither is 404. " +
      "For owners and admins, each bot answer also has `passages`: the knowledge passages it was given, and `actions`: the calls of actions it made (members never get either).",
  })
  @ApiData(200, 'The transcript and the lead.', ConversationDetailView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async get(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(ConversationParams, 'path')) params: ConversationParams): Promise<{ data: ConversationDetailView }> {
    const { ctx, workspace } = workspaceOf(caller);
    const withPassages = roleAtLeast(workspace.role, 'admin');
    const [messages, leads, calls] = await Promise.all([
      withPassages ? this.rpc.send('chat.conversation.transcript', { sessionId: params.sessionId }, ctx) : this.rpc.send('chat.conversation.messages', { sessionId: params.sessionId }, ctx),
      this.rpc.send('leads.lead.list', { sessionId: params.sessionId, limit: 1 }, ctx),
      // Issue 34: the recorded action calls, for owners and admins only (members never ask).
      withPassages ? this.rpc.send('chat.conversation.action-calls', { sessionId: params.sessionId }, ctx) : null,
    ]);
    if (messages.length === 0 && leads.length === 0) throw new NotFound('Conversation');
    return { data: { session_id: params.sessionId, messages: calls ? withActionCalls(messages, calls) : messages, lead: leads[0] ?? null } };
  }
}

/**
 * Each bot answer with the calls recorded for it (`actions`, oldest first; [] when none), for the
 * owners' and admins' transcript. The visitor's messages get no member.
 */
export function withActionCalls(messages: ConsoleChatMessageView[], calls: SessionActionCall[]): ConsoleChatMessageView[] {
  const byMessage = new Map<string, ActionCallRecordView[]>();
  for (const { message_id, ...call } of calls) byMessage.set(message_id, [...(byMessage.get(message_id) ?? []), call]);
  return messages.map((m) => (m.role === 'assistant' ? { ...m, actions: byMessage.get(m.id) ?? [] } : m));
}
