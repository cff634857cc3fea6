import { Controller, Inject, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection, Subscription } from 'nats';
import { CHAT_CANCEL_SUBJECT, CallerContext, ChatTurnCancel, ChatTurnRequest, ChatTurnStarted } from '@sa/contracts';
import { NATS_CONNECTION, RpcHandler } from '@sa/messaging';
import { ChatTurnService } from './chat-turn.service';

@Controller()
export class ChatTurnHandler implements OnApplicationBootstrap, OnApplicationShutdown {
  private cancels: Subscription | null = null;

  constructor(
    private readonly turns: ChatTurnService,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  @RpcHandler('chat.turn.start')
  start(req: ChatTurnRequest, ctx: CallerContext): Promise<ChatTurnStarted> {
    return this.turns.start(ctx, req);
  }

  /** Every replica hears every cancel (no queue group); the one running the turn stops it. */
  onApplicationBootstrap(): void {
    this.cancels = this.nc.subscribe(CHAT_CANCEL_SUBJECT, {
      callback: (err, msg) => {
        if (err) return;
        try {
          const { turn_id } = JSON.parse(Buffer.from(msg.data).toString('utf8')) as ChatTurnCancel;
          if (typeof turn_id === 'string') this.turns.cancel(turn_id);
        } catch {
          // not a cancel message
        }
      },
    });
  }

  onApplicationShutdown(): void {
    this.cancels?.unsubscribe();
  }
}
