import { Inject, Injectable } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { CallerContext, WidgetRepliesRequest, WidgetRepliesView, handoffLiveSubject } from '@sa/contracts';
import { NATS_CONNECTION, RpcClient } from '@sa/messaging';

/**
 * The widget's long poll for a person's replies (issue 19). It listens on the session's live
 * subject before it asks, so a reply written between the question and the wait still wakes it;
 * it answers at once when there is news, or when nobody was asked for (state none or released).
 */
@Injectable()
export class HandoffReplies {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  async wait(ctx: CallerContext, req: WidgetRepliesRequest, waitMs: number): Promise<WidgetRepliesView> {
    const sub = this.nc.subscribe(handoffLiveSubject(ctx.tenantId, req.sessionId), { max: 1 });
    try {
      const first = await this.rpc.send('chat.handoff.widget-replies', req, ctx);
      if (first.replies.length || (first.state !== 'requested' && first.state !== 'taken') || waitMs <= 0) return first;
      const woke = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), waitMs);
        void (async () => {
          for await (const _ of sub) {
            clearTimeout(timer);
            resolve(true);
            return;
          }
        })();
      });
      if (!woke) return first;
      // The state changed (a reply, a take-over, a hand-back): the news, from the cursor on.
      return await this.rpc.send('chat.handoff.widget-replies', { ...req, after: first.cursor }, ctx);
    } finally {
      sub.unsubscribe();
    }
  }
}
