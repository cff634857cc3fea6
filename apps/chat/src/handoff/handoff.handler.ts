import { Controller } from '@nestjs/common';
import {
  CallerContext,
  HandoffConversationView,
  HandoffMessageView,
  HandoffQueueRequest,
  HandoffReleaseRequest,
  HandoffReplyRequest,
  HandoffSessionRequest,
  HandoffTakeRequest,
  HandoffView,
  WidgetRepliesRequest,
  WidgetRepliesView,
} from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { HandoffService } from './handoff.service';

/** chat.handoff.*: the queue of sessions that asked for a person (the console) and the widget's poll for their replies. */
@Controller()
export class HandoffHandler {
  constructor(private readonly handoffs: HandoffService) {}

  @RpcHandler('chat.handoff.queue')
  queue(req: HandoffQueueRequest, ctx: CallerContext): Promise<HandoffView[]> {
    return this.handoffs.queue(ctx, req);
  }

  @RpcHandler('chat.handoff.get')
  get(req: HandoffSessionRequest, ctx: CallerContext): Promise<HandoffConversationView> {
    return this.handoffs.get(ctx, req.sessionId);
  }

  @RpcHandler('chat.handoff.take')
  take(req: HandoffTakeRequest, ctx: CallerContext): Promise<HandoffView> {
    return this.handoffs.take(ctx, req);
  }

  @RpcHandler('chat.handoff.reply')
  reply(req: HandoffReplyRequest, ctx: CallerContext): Promise<HandoffMessageView> {
    return this.handoffs.reply(ctx, req);
  }

  @RpcHandler('chat.handoff.release')
  release(req: HandoffReleaseRequest, ctx: CallerContext): Promise<HandoffView> {
    return this.handoffs.release(ctx, req);
  }

  @RpcHandler('chat.handoff.widget-replies')
  widgetReplies(req: WidgetRepliesRequest, ctx: CallerContext): Promise<WidgetRepliesView> {
    return this.handoffs.widgetReplies(ctx, req);
  }
}
