import { Body, Controller, Get, HttpCode, Inject, Post, Res } from '@nestjs/common';
import { ApiBody, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import {
  WidgetBookingBody,
  WidgetConfigView,
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
  WidgetRepliesBody,
  WidgetRepliesView,
  WidgetSessionBody,
  WidgetSessionView,
  WidgetTicketBody,
} from '@sa/contracts';
import { InvalidUserHash } from '@sa/errors';
import { RpcClient } from '@sa/messaging';
import { ChatStreamer } from '../chat/chat-streamer';
import { GATEWAY_CONFIG, GatewayConfig } from '../config/gateway.config';
import { HandoffReplies } from './handoff-replies';
import { dto } from '../http/dto.pipe';
import { ACTION_CONFLICT, ApiChatStream, ApiErrorObject, ApiWidgetErrors, RATE_HEADERS, WIDGET_CHAT_STREAM_DESCRIPTION, WIDGET_CHAT_STREAM_EXAMPLE } from '../openapi/api-responses';
import { ApiWidgetData, ApiWidgetOperation } from './widget-openapi';
import { WidgetAccess } from './widget-access';
import { WidgetCaller, WidgetCallerContext, WidgetRoute } from './widget.guard';
import { leadReceipt, ticketReceipt, visitorBooking } from './widget-views';

/**
 * The visitor widget's public API (ours; the spec shows none): no token, the bot in the path
 * names the workspace, rate-limited per client IP and per session (docs/decisions/leads-bookings.md). Sessions
 * are minted by the server; a call naming a session that is not a widget session of this bot is
 * 403 (WidgetGuard). Answers carry only what the visitor sent plus ids, statuses and timestamps.
 */
@ApiTags('Widget')
@ApiParam({ name: 'botId', description: 'The bot the widget belongs to; it names the workspace. Not a uuid, or unknown: 404.', schema: { type: 'string', format: 'uuid' } })
@Controller('widget/v1/bots/:botId')
export class WidgetController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly streamer: ChatStreamer,
    private readonly access: WidgetAccess,
    private readonly replies: HandoffReplies,
    @Inject(GATEWAY_CONFIG) private readonly gatewayConfig: GatewayConfig,
  ) {}

  @Get('config')
  @WidgetRoute('chat:invoke')
  @ApiWidgetOperation(
    'widgetConfig',
    "The widget's settings",
    "What the widget needs to draw itself: the bot's name and language, its look (colour, corner, greeting, launcher text), its starter questions and whether it " +
      'can identify visitors. Sent with `Cache-Control: no-cache`: a change in the console shows on the next page load.',
  )
  @ApiWidgetData(200, "The bot's widget settings.", WidgetConfigView)
  @ApiWidgetErrors({ session: false })
  async config(@WidgetCaller() { botId }: WidgetCallerContext, @Res({ passthrough: true }) reply: FastifyReply): Promise<{ data: WidgetConfigView }> {
    const bot = await this.access.bot(botId);
    void reply.header('cache-control', 'no-cache');
    return { data: { bot_id: bot.id, name: bot.name, language: bot.language, theme: bot.widget, identity: bot.identity, starter_questions: bot.starter_questions ?? [] } };
  }

  @Post('sessions')
  @WidgetRoute('chat:invoke')
  @HttpCode(201)
  @ApiWidgetOperation('widgetCreateSession', 'Start a visitor session', 'Mints a new widget session of the bot. The widget keeps its id and sends it with every later call.')
  @ApiBody({ type: WidgetSessionBody, required: false })
  @ApiWidgetData(201, 'The new session.', WidgetSessionView)
  @ApiWidgetErrors({ session: false })
  async session(@WidgetCaller() { ctx, botId }: WidgetCallerContext, @Body(dto(WidgetSessionBody, 'body', { optional: true })) _body: WidgetSessionBody | undefined): Promise<{ data: WidgetSessionView }> {
    return { data: await this.rpc.send('chat.widget-session.create', { chatbotId: botId }, ctx) };
  }

  @Post('chat')
  @WidgetRoute('chat:invoke')
  @HttpCode(200)
  @ApiWidgetOperation(
    'widgetChat',
    'Chat with the bot',
    'Sends a visitor message and streams the reply: the same answer pipeline and event-stream format as POST /v1/chat of the REST API, ' +
      "with channel `widget`. Counts toward the bot's monthly widget budget (a plan limit per bot), not the workspace's message quota; " +
      'a used-up budget gives 402 `widget_budget_exhausted`.',
  )
  @ApiChatStream({ session: 'The session this turn belongs to (minted when no sessionId was sent: keep it for later calls).', chatbot: 'The bot that answered.' }, RATE_HEADERS, {
    description: WIDGET_CHAT_STREAM_DESCRIPTION,
    example: WIDGET_CHAT_STREAM_EXAMPLE,
  })
  @ApiWidgetErrors({ session: true })
  @ApiErrorObject(409, ACTION_CONFLICT)
  async chat(@WidgetCaller() { ctx, botId }: WidgetCallerContext, @Body(dto(WidgetChatBody, 'body')) body: WidgetChatBody, @Res() reply: FastifyReply): Promise<void> {
    await this.streamer.stream(ctx, { ...body, chatbotId: botId }, 'widget', reply);
  }

  @Post('feedback')
  @WidgetRoute('chat:invoke')
  @HttpCode(200)
  @ApiWidgetOperation('widgetFeedback', 'Rate an answer', 'Records positive or negative feedback on an assistant message of the session.')
  @ApiWidgetData(200, 'The feedback was recorded.', WidgetFeedbackView)
  @ApiWidgetErrors({ session: true })
  async feedback(@WidgetCaller() { ctx }: WidgetCallerContext, @Body(dto(WidgetFeedbackBody, 'body')) body: WidgetFeedbackBody): Promise<{ data: WidgetFeedbackView }> {
    const done = await this.rpc.send('chat.message.feedback', body, ctx);
    return { data: { message_id: done.message_id, feedback: done.feedback } };
  }

  @Post('identify')
  @WidgetRoute('chat:invoke')
  @HttpCode(200)
  @ApiWidgetOperation(
    'widgetIdentify',
    'Identify the visitor',
    "Links the session to a visitor signed in on the customer's site (the lead's `external_user_id`). The customer's server proves the user id with " +
      "`userHash`, the hex HMAC-SHA256 of externalUserId keyed with the bot's widget identity secret (made in the console or with the admin CLI). " +
      'A wrong hash, or a bot without a secret, is refused with 403 `invalid_user_hash` and nothing is stored.',
  )
  @ApiWidgetData(200, 'The visitor was identified.', WidgetIdentifyView)
  @ApiWidgetErrors({ session: true })
  async identify(@WidgetCaller() { ctx, botId }: WidgetCallerContext, @Body(dto(WidgetIdentifyBody, 'body')) body: WidgetIdentifyBody): Promise<{ data: WidgetIdentifyView }> {
    const { userHash, ...visitor } = body;
    const { valid } = await this.rpc.send('bots.widget.identity.verify', { chatbotId: botId, externalUserId: visitor.externalUserId, userHash }, ctx);
    if (!valid) throw new InvalidUserHash();
    // The conversation's visitor is verified for actions (issue 34) before the lead is written.
    await this.rpc.send('chat.widget-session.verify', { chatbotId: botId, sessionId: visitor.sessionId, externalUserId: visitor.externalUserId }, ctx);
    const done = await this.rpc.send('leads.visitor.identify', { ...visitor, chatbotId: botId }, ctx);
    return { data: { session_id: done.session_id, identified: true } };
  }

  @Post('leads')
  @WidgetRoute('chat:invoke')
  @HttpCode(201)
  @ApiWidgetOperation(
    'widgetCreateLead',
    'Submit the lead form',
    "Captures a lead from the widget's lead form (`captured_via` `form`). The answer is a receipt: the lead is read through the REST API.",
  )
  @ApiWidgetData(201, 'The lead form was stored.', WidgetReceiptView)
  @ApiWidgetErrors({ session: true })
  async lead(@WidgetCaller() { ctx, botId }: WidgetCallerContext, @Body(dto(WidgetLeadBody, 'body')) body: WidgetLeadBody): Promise<{ data: WidgetReceiptView }> {
    return { data: leadReceipt(await this.rpc.send('leads.lead.capture', { ...body, chatbotId: botId }, ctx)) };
  }

  @Post('bookings')
  @WidgetRoute('bookings:write')
  @HttpCode(201)
  @ApiWidgetOperation(
    'widgetCreateBooking',
    'Request a booking',
    'Creates a `pending` booking; the workspace confirms, rejects, reschedules or cancels it through the REST API (PATCH /v1/bookings/{id}).',
  )
  @ApiWidgetData(201, 'The booking was requested.', WidgetBookingView)
  @ApiWidgetErrors({ session: true })
  async booking(@WidgetCaller() { ctx, botId }: WidgetCallerContext, @Body(dto(WidgetBookingBody, 'body')) body: WidgetBookingBody): Promise<{ data: WidgetBookingView }> {
    return { data: visitorBooking(await this.rpc.send('bookings.booking.create', { ...body, chatbotId: botId }, ctx)) };
  }

  @Post('tickets')
  @WidgetRoute('chat:invoke')
  @HttpCode(201)
  @ApiWidgetOperation('widgetCreateTicket', 'Open a support ticket', "Creates a support ticket from the widget's Support tab.")
  @ApiWidgetData(201, 'The ticket was created.', WidgetReceiptView)
  @ApiWidgetErrors({ session: true })
  async ticket(@WidgetCaller() { ctx, botId }: WidgetCallerContext, @Body(dto(WidgetTicketBody, 'body')) body: WidgetTicketBody): Promise<{ data: WidgetReceiptView }> {
    return { data: ticketReceipt(await this.rpc.send('chat.ticket.create', { ...body, chatbotId: botId }, ctx)) };
  }

  @Post('handoff')
  @WidgetRoute('chat:invoke')
  @HttpCode(200)
  @ApiWidgetOperation('widgetHandoff', 'Ask for a person', 'Marks the session for a person to take over.')
  @ApiWidgetData(200, 'The handoff was requested.', WidgetHandoffView)
  @ApiWidgetErrors({ session: true })
  async handoff(@WidgetCaller() { ctx, botId }: WidgetCallerContext, @Body(dto(WidgetHandoffBody, 'body')) body: WidgetHandoffBody): Promise<{ data: WidgetHandoffView }> {
    const done = await this.rpc.send('chat.session.handoff', { ...body, chatbotId: botId }, ctx);
    return { data: { session_id: done.session_id, handoff: true } };
  }

  @Post('replies')
  @WidgetRoute('chat:invoke')
  @HttpCode(200)
  @ApiWidgetOperation(
    'widgetReplies',
    "A person's replies (long poll)",
    'The handoff state of the session and the replies a person wrote after `after`. When there is nothing new and a person was asked for or ' +
      'holds the session, the answer waits (up to WIDGET_REPLIES_WAIT_MS, 10 s by default) for a reply, a take-over or a hand-back. Send the answer\'s ' +
      '`cursor` as `after` in the next call.',
  )
  @ApiWidgetData(200, 'The state and the new replies.', WidgetRepliesView)
  @ApiWidgetErrors({ session: true })
  async pollReplies(@WidgetCaller() { ctx, botId }: WidgetCallerContext, @Body(dto(WidgetRepliesBody, 'body')) body: WidgetRepliesBody): Promise<{ data: WidgetRepliesView }> {
    return { data: await this.replies.wait(ctx, { ...body, chatbotId: botId }, this.gatewayConfig.widgetRepliesWaitMs) };
  }
}
