import { Controller } from '@nestjs/common';
import {
  CallerContext,
  FeedbackRequest,
  HandoffRequest,
  TicketRequest,
  TicketView,
  WidgetSessionCheck,
  WidgetSessionCheckRequest,
  WidgetSessionRequest,
  WidgetSessionVerifyRequest,
  WidgetSessionView,
} from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { WidgetService } from './widget.service';

/** The public widget's requests (gateway /widget/v1/bots/{botId}/…): sessions, feedback, tickets, handoff. */
@Controller()
export class WidgetHandler {
  constructor(private readonly widget: WidgetService) {}

  @RpcHandler('chat.widget-session.create')
  createSession(req: WidgetSessionRequest, ctx: CallerContext): Promise<WidgetSessionView> {
    return this.widget.createSession(ctx, req);
  }

  @RpcHandler('chat.widget-session.check')
  checkSession(req: WidgetSessionCheckRequest, ctx: CallerContext): Promise<WidgetSessionCheck> {
    return this.widget.checkSession(ctx, req);
  }

  @RpcHandler('chat.widget-session.verify')
  verifySession(req: WidgetSessionVerifyRequest, ctx: CallerContext): Promise<{ verified: boolean }> {
    return this.widget.verifySession(ctx, req);
  }

  @RpcHandler('chat.message.feedback')
  feedback(req: FeedbackRequest, ctx: CallerContext): Promise<{ message_id: string; feedback: 'positive' | 'negative' }> {
    return this.widget.feedback(ctx, req);
  }

  @RpcHandler('chat.ticket.create')
  createTicket(req: TicketRequest, ctx: CallerContext): Promise<TicketView> {
    return this.widget.createTicket(ctx, req);
  }

  @RpcHandler('chat.session.handoff')
  handoff(req: HandoffRequest, ctx: CallerContext): Promise<{ session_id: string; handoff: true }> {
    return this.widget.handoff(ctx, req);
  }
}
