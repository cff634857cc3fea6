import { Body, Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  BookingView,
  LeadView,
  TicketView,
  WidgetBookingBody,
  WidgetChatBody,
  WidgetFeedbackBody,
  WidgetHandoffBody,
  WidgetIdentifyBody,
  WidgetLeadBody,
  WidgetTicketBody,
} from '@sa/contracts';
import { RpcClient } from '@sa/messaging';
import { Public } from '../auth/route-access.decorator';
import { ChatStreamer } from '../chat/chat-streamer';
import { dto } from '../http/dto.pipe';
import { WidgetAccess } from './widget-access';

/**
 * The visitor widget's public API (ours; the spec shows none): no token, the bot in the path
 * names the workspace, rate-limited per client IP and per session (docs/decisions.md).
 */
@Controller('widget/v1/bots/:botId')
export class WidgetController {
  constructor(
    private readonly access: WidgetAccess,
    private readonly rpc: RpcClient,
    private readonly streamer: ChatStreamer,
  ) {}

  @Post('chat')
  @Public()
  async chat(@Param('botId') botId: string, @Body(dto(WidgetChatBody, 'body')) body: WidgetChatBody, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const ctx = await this.access.context(botId, req, reply, body.sessionId, ['chat:invoke']);
    await this.streamer.stream(ctx, { ...body, chatbotId: ctx.botIds![0] }, 'widget', reply);
  }

  @Post('feedback')
  @Public()
  @HttpCode(200)
  async feedback(@Param('botId') botId: string, @Body(dto(WidgetFeedbackBody, 'body')) body: WidgetFeedbackBody, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const ctx = await this.access.context(botId, req, reply, body.sessionId, ['chat:invoke']);
    return { data: await this.rpc.send('chat.message.feedback', body, ctx) };
  }

  @Post('identify')
  @Public()
  @HttpCode(200)
  async identify(@Param('botId') botId: string, @Body(dto(WidgetIdentifyBody, 'body')) body: WidgetIdentifyBody, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const ctx = await this.access.context(botId, req, reply, body.sessionId, ['chat:invoke']);
    return { data: await this.rpc.send('leads.visitor.identify', { ...body, chatbotId: ctx.botIds![0] }, ctx) };
  }

  @Post('leads')
  @Public()
  @HttpCode(201)
  async lead(@Param('botId') botId: string, @Body(dto(WidgetLeadBody, 'body')) body: WidgetLeadBody, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<{ data: LeadView }> {
    const ctx = await this.access.context(botId, req, reply, body.sessionId, ['chat:invoke']);
    return { data: await this.rpc.send('leads.lead.capture', { ...body, chatbotId: ctx.botIds![0] }, ctx) };
  }

  @Post('bookings')
  @Public()
  @HttpCode(201)
  async booking(@Param('botId') botId: string, @Body(dto(WidgetBookingBody, 'body')) body: WidgetBookingBody, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<{ data: BookingView }> {
    const ctx = await this.access.context(botId, req, reply, body.sessionId, ['bookings:write']);
    return { data: await this.rpc.send('bookings.booking.create', { ...body, chatbotId: ctx.botIds![0] }, ctx) };
  }

  @Post('tickets')
  @Public()
  @HttpCode(201)
  async ticket(@Param('botId') botId: string, @Body(dto(WidgetTicketBody, 'body')) body: WidgetTicketBody, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<{ data: TicketView }> {
    const ctx = await this.access.context(botId, req, reply, body.sessionId, ['chat:invoke']);
    return { data: await this.rpc.send('chat.ticket.create', { ...body, chatbotId: ctx.botIds![0] }, ctx) };
  }

  @Post('handoff')
  @Public()
  @HttpCode(200)
  async handoff(@Param('botId') botId: string, @Body(dto(WidgetHandoffBody, 'body')) body: WidgetHandoffBody, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const ctx = await this.access.context(botId, req, reply, body.sessionId, ['chat:invoke']);
    return { data: await this.rpc.send('chat.session.handoff', { ...body, chatbotId: ctx.botIds![0] }, ctx) };
  }
}
