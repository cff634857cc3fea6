import { randomUUID } from 'node:crypto';
import type { NatsConnection } from 'nats';
import { CHAT_CANCEL_SUBJECT, CallerContext, ChatChannel, ChatRequest, ChatStreamEvent, ChatTurnRequest, ChatTurnCancel, ChatTurnStarted, PlaygroundOptions } from '@sa/contracts';
import { DEFAULT_RPC_LIVENESS, RpcClient } from '@sa/messaging';
import { StreamIdle, TurnStream } from './turn-stream';

export interface ChatTurnTimeouts {
  /** How long the start of a turn (quota, bot and session checks, retrieval) may take. */
  startTimeoutMs: number;
  /** A turn with no new part for this long is ended (the chat service may have died). */
  idleTimeoutMs: number;
  /** A turn whose chat replica has not signed that it is alive for this long is ended at once (RPC_LOST_AFTER_MS; issue 36). */
  lostAfterMs?: number;
}

/**
 * One running chat turn, as the edges (REST SSE, the widget, MCP's ask_bot) consume it: the
 * chat service accepted it (`started`), its parts arrive from `events()`, and `cancel()` tells the
 * chat service to stop generating (what was produced is still saved).
 */
export class ChatTurn {
  private cancelled = false;

  constructor(
    readonly turnId: string,
    readonly started: ChatTurnStarted,
    private readonly stream: TurnStream,
    private readonly nc: NatsConnection,
  ) {}

  /** The turn's events up to its end or error event; a silent stream is cancelled and ends with StreamIdle. */
  async *events(): AsyncGenerator<ChatStreamEvent> {
    try {
      yield* this.stream.events();
    } catch (err) {
      if (err instanceof StreamIdle) this.cancel();
      throw err;
    } finally {
      this.stream.close();
    }
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.nc.publish(CHAT_CANCEL_SUBJECT, Buffer.from(JSON.stringify({ turn_id: this.turnId } satisfies ChatTurnCancel)));
    this.stream.close();
  }

  close(): void {
    this.stream.close();
  }
}

/**
 * Starts a chat turn over NATS: subscribes to the turn's own subject first (so no part is
 * missed), then asks the chat service to begin. Errors before the answer starts (validation, bot
 * access, quota, a chat service that does not answer) are thrown as they came.
 */
export async function startChatTurn(
  rpc: RpcClient,
  nc: NatsConnection,
  ctx: CallerContext,
  /** The request's members; a channel's turn (issue 35) adds the provider's message id and the sender. */
  body: ChatRequest & Pick<ChatTurnRequest, 'provider_message_id' | 'contact'>,
  channel: ChatChannel,
  timeouts: ChatTurnTimeouts,
  /** The console's playground (issue 32): a turn stored and counted nowhere. */
  playground?: PlaygroundOptions,
): Promise<ChatTurn> {
  const turnId = randomUUID();
  const stream = new TurnStream(nc, `_SA.chat.${turnId}`, timeouts.idleTimeoutMs, timeouts.lostAfterMs ?? DEFAULT_RPC_LIVENESS.lostAfterMs);
  try {
    const started = await rpc.send('chat.turn.start', { ...body, streamSubject: stream.subject, turnId, channel, ...(playground ? { playground } : {}) }, ctx, { timeoutMs: timeouts.startTimeoutMs });
    return new ChatTurn(turnId, started, stream, nc);
  } catch (err) {
    stream.close();
    throw err;
  }
}
