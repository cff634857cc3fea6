import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { BotAccess } from '@sa/bot-access';
import { CallerContext, ChatRequest } from '@sa/contracts';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/route-access.decorator';
import { dto } from '../http/dto.pipe';
import { ACTION_CONFLICT, ApiChatStream, ApiErrorObject, ApiTokenErrors } from '../openapi/api-responses';
import { ChatStreamer } from './chat-streamer';

export { sseFrame } from './chat-streamer';

/** POST /v1/chat (spec part 4): JSON errors before the answer, then the answer as SSE frames. */
@ApiTags('Chat')
@ApiTokenErrors()
@Controller('v1')
export class ChatController {
  constructor(private readonly streamer: ChatStreamer) {}

  @Post('chat')
  @RequireScope('chat:invoke', { botAccess: { mode: BotAccess.MustName, from: 'body' } })
  // The stream's status, written by the streamer once the turn is accepted (errors before it are JSON).
  @HttpCode(200)
  @ApiOperation({
    operationId: 'chat',
    summary: 'Chat with a bot',
    description:
      'Sends a visitor message and streams the reply. Counts toward the monthly message quota; exhaustion gives 402. ' +
      'The behaviour when sessionId is omitted is not specified by the spec; this implementation starts a new session and ' +
      "returns its id in the X-Session-Id header. Without chatbotId, an unrestricted token is answered by the workspace's " +
      'first bot (X-Chatbot-Id).',
  })
  @ApiChatStream({
    session: 'The conversation this turn belongs to (generated when no sessionId was sent). This implementation.',
    chatbot: 'The bot that answered, when there is one. This implementation.',
  })
  @ApiErrorObject(409, ACTION_CONFLICT)
  async chat(@Caller() ctx: CallerContext, @Body(dto(ChatRequest, 'body')) body: ChatRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.streamer.stream(ctx, body, 'api', reply);
  }
}
