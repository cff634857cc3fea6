import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { BotAccess, enforceBotAccess, widgetBot } from '@sa/bot-access';
import { CallerContext, FeedbackRequest, HandoffRequest, TicketRequest, TicketView, WidgetSessionCheck, WidgetSessionCheckRequest, WidgetSessionRequest, WidgetSessionVerifyRequest, WidgetSessionView } from '@sa/contracts';
import { BotAccessDenied, NotFound } from '@sa/errors';
import { Outbox } from '@sa/events';
import { MessagesRepository } from '../conversations/messages.repository';
import { HandoffService } from '../handoff/handoff.service';
import { WidgetSessionsRepository } from './widget-sessions.repository';
import { WidgetRepository } from './widget.repository';

/**
 * The visitor widget's actions besides chatting. The gateway's public widget routes call with
 * ctx.tenantId = the bot's workspace and ctx.botIds = [that bot]: every action is limited to it.
 */
@Injectable()
export class WidgetService {
  constructor(
    private readonly widget: WidgetRepository,
    private readonly sessions: WidgetSessionsRepository,
    private readonly messages: MessagesRepository,
    private readonly outbox: Outbox,
    private readonly handoffs: HandoffService,
    @InjectDataSource() private readonly ds: DataSource,
  ) {}

  /** Mints a widget session of the widget's bot. */
  async createSession(ctx: CallerContext, req: WidgetSessionRequest): Promise<WidgetSessionView> {
    const botId = requireBot(ctx, req.chatbotId);
    return { session_id: await this.sessions.mint(ctx.tenantId, botId) };
  }

  /** Whether the session was minted as a widget session of the widget's bot (the gateway refuses the call otherwise). */
  async checkSession(ctx: CallerContext, req: WidgetSessionCheckRequest): Promise<WidgetSessionCheck> {
    const botId = requireBot(ctx, req.chatbotId);
    return { widget_session: await this.sessions.isWidgetSession(ctx.tenantId, botId, req.sessionId) };
  }

  /**
   * The gateway checked the visitor's user hash (identify): the session's visitor is verified as
   * that user from now on (issue 34: only this id is ever passed to an action). A session that is
   * not a widget session of the widget's bot is refused.
   */
  async verifySession(ctx: CallerContext, req: WidgetSessionVerifyRequest): Promise<{ verified: boolean }> {
    const botId = requireBot(ctx, req.chatbotId);
    if (!(await this.sessions.verify(ctx.tenantId, botId, req.sessionId, req.externalUserId.trim()))) throw new BotAccessDenied('Not a session of this bot');
    return { verified: true };
  }

  /** Feedback on an assistant message of a session of the widget's bot; 404 for any other message. */
  async feedback(ctx: CallerContext, req: FeedbackRequest): Promise<{ message_id: string; feedback: 'positive' | 'negative' }> {
    const botId = widgetBot(ctx);
    const ok = await this.widget.setBotMessageFeedback(ctx.tenantId, botId, req.sessionId, req.messageId, req.feedback);
    if (!ok) throw new NotFound('Message');
    return { message_id: req.messageId, feedback: req.feedback };
  }

  /** Stores a support ticket and writes ticket.created in the same transaction. */
  async createTicket(ctx: CallerContext, req: TicketRequest): Promise<TicketView> {
    const botId = requireBot(ctx, req.chatbotId);
    return this.ds.transaction(async (m) => {
      await this.checkSessionBot(m, ctx.tenantId, req.sessionId, botId);
      const ticket = await this.widget.insertTicket(m, {
        tenantId: ctx.tenantId,
        chatbotId: botId,
        sessionId: req.sessionId,
        email: req.email,
        name: req.name ?? null,
        subject: req.subject,
        message: req.message,
      });
      await this.outbox.add(m, 'ticket.created', ctx.tenantId, {
        ticket_id: ticket.id,
        session_id: ticket.session_id,
        chatbot_id: ticket.chatbot_id,
        email: ticket.email,
        name: ticket.name,
        subject: ticket.subject,
        message: ticket.message,
      });
      return ticket;
    });
  }

  /** The visitor asks for a person: conversation.handoff (explicit), and the session enters the handoff queue. The session need not exist yet. */
  async handoff(ctx: CallerContext, req: HandoffRequest): Promise<{ session_id: string; handoff: true }> {
    const botId = requireBot(ctx, req.chatbotId);
    await this.ds.transaction(async (m) => {
      await this.checkSessionBot(m, ctx.tenantId, req.sessionId, botId);
      await this.handoffs.request(m, { tenantId: ctx.tenantId, sessionId: req.sessionId, chatbotId: botId, channel: 'widget', kind: 'explicit', reason: req.reason ?? null, question: null });
      await this.outbox.add(m, 'conversation.handoff', ctx.tenantId, {
        session_id: req.sessionId,
        chatbot_id: botId,
        channel: 'widget',
        kind: 'explicit',
        reason: req.reason ?? null,
        message_id: null,
        question: null,
        language: null,
      });
    });
    return { session_id: req.sessionId, handoff: true };
  }

  /** An existing session must belong to the widget's bot. */
  private async checkSessionBot(m: EntityManager, tenantId: string, sessionId: string, botId: string): Promise<void> {
    const owner = await this.messages.sessionBot(tenantId, sessionId, m);
    if (owner !== undefined && owner !== botId) throw new BotAccessDenied('This session belongs to another bot');
  }
}

/** The request's bot must be the widget route's bot (ctx.botIds = [it]). */
function requireBot(ctx: CallerContext, chatbotId: string): string {
  enforceBotAccess(ctx, BotAccess.Widget, chatbotId);
  return chatbotId;
}
