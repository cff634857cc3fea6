import { Body, Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  WidgetBookingBody,
  WidgetBookingView,
  WidgetChatBody,
  WidgetFeedbackBody,
  WidgetFeedbackView,
  WidgetHandoffBody,
  WidgetHandoffView,
  WidgetIdentifyBody,
  WidgetIdentifyView,
  WidgetLeadBody,
  WidgetReceiptView,
  WidgetSessionBody,
  WidgetSessionView,
  WidgetTicketBody,
} from '@sa/contracts';
import { RpcClient } from '@sa/messaging';
import { Public } from '../auth/route-access.decorator';
import { ChatStreamer } from '../chat/chat-streamer';
import { dto } from '../http/dto.pipe';
import { WidgetAccess } from './widget-access';
import { leadReceipt, ticketReceipt, visitorBooking } from './widget-views';

/**
 * The visitor widget's public API (ours; the spec shows none): no token, the bot in the path
 * names the workspace, rate-limited per client IP and per session (docs/decisions.md). Sessions
 * are minted by the server; a call naming a session that is not a widget session of this bot is
 * 403. Answers carry only what the visitor sent plus ids, statuses and timestamps.
 */
@Controller('widget/v1/bots/:botId')
export class WidgetController {
  constructor(
    private readonly access: WidgetAccess,
    private readonly rpc: RpcClient,
    private readonly streamer: ChatStreamer,
  ) {}

  @Post('sessions')
  @Public()
  @HttpCode(201)
  async session(@Param('botId') botId: string, @Body() body: unknown, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<{ data: WidgetSessionView }> {
    // No body, or an empty JSON object.
    if (body !== undefined && body !== null) dto(WidgetSessionBody, 'body').transform(body);
    const ctx = await this.access.context(botId, req, reply, undefined, ['chat:invoke']);
    return { data: await this.rpc.send('chat.widget-session.create', { chatbotId: ctx.botIds![0] }, ctx) };
  }

  @Post('chat')
  @Public()
  async chat(@Param('botId') botId: string, @Body(dto(WidgetChatBody, 'body')) body: WidgetChatBody, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const ctx = await this.access.context(botId, req, reply, body.sessionId, ['chat:invoke']);
    await this.streamer.stream(ctx, { ...body, chatbotId: ctx.botIds![0] }, 'widget', reply);
  }

  @Post('feedback')
  @Public()
  @HttpCode(200)
  async feedback(@Param('botId') botId: string, @Body(dto(WidgetFeedbackBody, 'body')) body: WidgetFeedbackBody, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<{ data: WidgetFeedbackView }> {
    const ctx = await this.access.context(botId, req, reply, body.sessionId, ['chat:invoke']);
    const done = await this.rpc.send('chat.message.feedback', body, ctx);
    return { data: { message_id: done.message_id, feedback: done.feedback } };
  }

  @Post('identify')
  @Public()
  @HttpCode(200)
  async identify(@Param('botId') botId: string, @Body(dto(WidgetIdentifyBody, 'body')) body: WidgetIdentifyBody, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<{ data: WidgetIdentifyView }> {
    const ctx = await this.access.context(botId, req, reply, body.sessionId, ['chat:invoke']);
    const done = await this.rpc.send('leads.visitor.identify', { ...body, chatbotId: ctx.botIds![0] }, ctx);
    return { data: { session_id: done.session_id, identified: true } };
  }

  @Post('leads')
  @Public()
  @HttpCode(201)
  async lead(@Param('botId') botId: string, @Body(dto(WidgetLeadBody, 'body')) body: WidgetLeadBody, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<{ data: WidgetReceiptView }> {
    const ctx = await this.access.context(botId, req, reply, body.sessionId, ['chat:invoke']);
    return { data: leadReceipt(await this.rpc.send('leads.lead.capture', { ...body, chatbotId: ctx.botIds![0] }, ctx)) };
  }

  @Post('bookings')
  @Public()
  @HttpCode(201)
  async booking(@Param('botId') botId: string, @Body(dto(WidgetBookingBody, 'body')) body: WidgetBookingBody, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<{ data: WidgetBookingView }> {
    const ctx = await this.access.context(botId, req, reply, body.sessionId, ['bookings:write']);
    return { data: visitorBooking(await this.rpc.send('bookings.booking.create', { ...body, chatbotId: ctx.botIds![0] }, ctx)) };
  }

  @Post('tickets')
  @Public()
  @HttpCode(201)
  async ticket(@Param('botId') botId: string, @Body(dto(WidgetTicketBody, 'body')) body: WidgetTicketBody, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<{ data: WidgetReceiptView }> {
    const ctx = await this.access.context(botId, req, reply, body.sessionId, ['chat:invoke']);
    return { data: ticketReceipt(await this.rpc.send('chat.ticket.create', { ...body, chatbotId: ctx.botIds![0] }, ctx)) };
  }

  @Post('handoff')
  @Public()
  @HttpCode(200)
  async handoff(@Param('botId') botId: string, @Body(dto(WidgetHandoffBody, 'body')) body: WidgetHandoffBody, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<{ data: WidgetHandoffView }> {
    const ctx = await this.access.context(botId, req, reply, body.sessionId, ['chat:invoke']);
    const done = await this.rpc.send('chat.session.handoff', { ...body, chatbotId: ctx.botIds![0] }, ctx);
    return { data: { session_id: done.session_id, handoff: true } };
  }
}
