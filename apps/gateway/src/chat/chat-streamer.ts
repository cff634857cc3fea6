import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { CallerContext, ChatChannel, ChatRequest } from '@sa/contracts';
import { startChatTurn } from '@sa/edge';
import { NATS_CONNECTION, RpcClient } from '@sa/messaging';
import { gauge } from '@sa/metrics';
import { GATEWAY_LOGGER } from '../auth/auth.tokens';
import { GATEWAY_CONFIG, GatewayConfig } from '../config/gateway.config';

const streamsOpen = gauge({ name: 'sa_chat_streams_open', help: 'Chat answers being streamed to clients now (SSE), by channel', labelNames: ['channel'] as const });

/**
 * A session id as an HTTP header value: printable ASCII as it is; anything else (accents, emoji,
 * control characters cannot go in a header) percent-encoded as UTF-8.
 */
export function headerValue(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) ? value : encodeURIComponent(value);
}

/** One SSE frame of the spec: `data: <json>` and a blank line, the JSON with choices[0].delta.content. */
export function sseFrame(text: string): string {
  return `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] })}\n\n`;
}

/**
 * Runs one chat turn for an HTTP client (POST /v1/chat and the widget's chat). Errors before the
 * answer starts (validation, bot access, quota, a chat service that does not answer) are thrown,
 * so they become ordinary JSON errors. Then 200 text/event-stream with one frame per part of the
 * answer as the chat service produces it; the stream closes at the end. A client that disconnects
 * cancels the generation; what was produced is still saved by the chat service.
 */
@Injectable()
export class ChatStreamer {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
  ) {}

  async stream(ctx: CallerContext, body: ChatRequest, channel: ChatChannel, reply: FastifyReply): Promise<void> {
    const turn = await startChatTurn(this.rpc, this.nc, ctx, body, channel, {
      startTimeoutMs: this.config.chatStartTimeoutMs,
      idleTimeoutMs: this.config.chatIdleTimeoutMs,
    });

    reply.hijack();
    const raw = reply.raw;
    try {
      raw.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
        connection: 'keep-alive',
        'x-session-id': headerValue(turn.started.session_id),
        ...(turn.started.chatbot_id ? { 'x-chatbot-id': turn.started.chatbot_id } : {}),
      });
      raw.flushHeaders();
    } catch (err) {
      // Never leave the client waiting on a response that cannot be written.
      turn.cancel();
      this.logger.error({ request_id: ctx.requestId, turn_id: turn.turnId, err: (err as Error).message }, 'could not start the chat stream');
      raw.destroy();
      return;
    }
    streamsOpen.inc({ channel });

    let finished = false;
    raw.on('close', () => {
      if (finished) return;
      finished = true;
      turn.cancel();
      this.logger.info({ request_id: ctx.requestId, turn_id: turn.turnId }, 'chat client disconnected; generation cancelled');
    });
    try {
      for await (const event of turn.events()) {
        if (finished) break;
        if (event.type === 'delta') raw.write(sseFrame(event.text));
        else if (event.type === 'error') this.logger.error({ request_id: ctx.requestId, turn_id: turn.turnId, code: event.code, err: event.message }, 'chat stream ended with an error');
      }
    } catch (err) {
      this.logger.error({ request_id: ctx.requestId, turn_id: turn.turnId, err: (err as Error).message }, 'chat stream broke off');
    } finally {
      turn.close();
      streamsOpen.dec({ channel });
      if (!finished) {
        finished = true;
        raw.end();
      }
    }
  }
}
