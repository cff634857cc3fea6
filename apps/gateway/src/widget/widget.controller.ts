import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
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
import { ChatStreamer } from '../chat/chat-streamer';
import { dto } from '../http/dto.pipe';
import { WidgetCaller, WidgetCallerContext, WidgetRoute } from './widget.guard';
import { leadReceipt, ticketReceipt, visitorBooking } from './widget-views';

/**
 * The visitor widget's public API (ours; the spec shows none): no token, the bot in the path
 * names the workspace, rate-limited per client IP and per session (docs/decisions.md). Sessions
 * are minted by the server; a call naming a session that is not a widget session of this bot is
 * 403 (WidgetGuard). Answers carry only what the visitor sent plus ids, statuses and timestamps.
 */
@Controller('widget/v1/bots/:botId')
export class WidgetController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly streamer: ChatStreamer,
  ) {}

  @Post('sessions')
  @WidgetRoute('chat:invoke')
  @HttpCode(201)
  async session(@WidgetCaller() { ctx, botId }: WidgetCallerContext, @Body(dto(WidgetSessionBody, 'body', { optional: true })) _body: WidgetSessionBody | undefined): Promise<{ data: WidgetSessionView }> {
    return { data: await this.rpc.send('chat.widget-session.create', { chatbotId: botId }, ctx) };
  }

  @Post('chat')
  @WidgetRoute('chat:invoke')
  async chat(@WidgetCaller() { ctx, botId }: WidgetCallerContext, @Body(dto(WidgetChatBody, 'body')) body: WidgetChatBody, @Res() reply: FastifyReply): Promise<void> {
    await this.streamer.stream(ctx, { ...body, chatbotId: botId }, 'widget', reply);
  }

  @Post('feedback')
  @WidgetRoute('chat:invoke')
  @HttpCode(200)
  async feedback(@WidgetCaller() { ctx }: WidgetCallerContext, @Body(dto(WidgetFeedbackBody, 'body')) body: WidgetFeedbackBody): Promise<{ data: WidgetFeedbackView }> {
    const done = await this.rpc.send('chat.message.feedback', body, ctx);
    return { data: { message_id: done.message_id, feedback: done.feedback } };
  }

  @Post('identify')
  @WidgetRoute('chat:invoke')
  @HttpCode(200)
  async identify(@WidgetCaller() { ctx, botId }: WidgetCallerContext, @Body(dto(WidgetIdentifyBody, 'body')) body: WidgetIdentifyBody): Promise<{ data: WidgetIdentifyView }> {
    const done = await this.rpc.send('leads.visitor.identify', { ...body, chatbotId: botId }, ctx);
    return { data: { session_id: done.session_id, identified: true } };
  }

  @Post('leads')
  @WidgetRoute('chat:invoke')
  @HttpCode(201)
  async lead(@WidgetCaller() { ctx, botId }: WidgetCallerContext, @Body(dto(WidgetLeadBody, 'body')) body: WidgetLeadBody): Promise<{ data: WidgetReceiptView }> {
    return { data: leadReceipt(await this.rpc.send('leads.lead.capture', { ...body, chatbotId: botId }, ctx)) };
  }

  @Post('bookings')
  @WidgetRoute('bookings:write')
  @HttpCode(201)
  async booking(@WidgetCaller() { ctx, botId }: WidgetCallerContext, @Body(dto(WidgetBookingBody, 'body')) body: WidgetBookingBody): Promise<{ data: WidgetBookingView }> {
    return { data: visitorBooking(await this.rpc.send('bookings.booking.create', { ...body, chatbotId: botId }, ctx)) };
  }

  @Post('tickets')
  @WidgetRoute('chat:invoke')
  @HttpCode(201)
  async ticket(@WidgetCaller() { ctx, botId }: WidgetCallerContext, @Body(dto(WidgetTicketBody, 'body')) body: WidgetTicketBody): Promise<{ data: WidgetReceiptView }> {
    return { data: ticketReceipt(await this.rpc.send('chat.ticket.create', { ...body, chatbotId: botId }, ctx)) };
  }

  @Post('handoff')
  @WidgetRoute('chat:invoke')
  @HttpCode(200)
  async handoff(@WidgetCaller() { ctx, botId }: WidgetCallerContext, @Body(dto(WidgetHandoffBody, 'body')) body: WidgetHandoffBody): Promise<{ data: WidgetHandoffView }> {
    const done = await this.rpc.send('chat.session.handoff', { ...body, chatbotId: botId }, ctx);
    return { data: { session_id: done.session_id, handoff: true } };
  }
}
