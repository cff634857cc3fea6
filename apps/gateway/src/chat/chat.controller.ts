import { Body, Controller, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { BotAccess } from '@sa/bot-access';
import { CallerContext, ChatRequest } from '@sa/contracts';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/route-access.decorator';
import { dto } from '../http/dto.pipe';
import { ChatStreamer } from './chat-streamer';

export { sseFrame } from './chat-streamer';

/** POST /v1/chat (spec part 4): JSON errors before the answer, then the answer as SSE frames. */
@Controller('v1')
export class ChatController {
  constructor(private readonly streamer: ChatStreamer) {}

  @Post('chat')
  @RequireScope('chat:invoke', { botAccess: { mode: BotAccess.MustName, from: 'body' } })
  async chat(@Caller() ctx: CallerContext, @Body(dto(ChatRequest, 'body')) body: ChatRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.streamer.stream(ctx, body, 'api', reply);
  }
}
