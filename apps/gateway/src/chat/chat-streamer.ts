import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { ActionFrame, CallerContext, ChatChannel, ChatRequest } from '@sa/contracts';
import { StreamIdle, StreamLost, startChatTurn } from '@sa/edge';
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

/**
 * One content frame of the spec: `data: <json>` and a blank line, the JSON with
 * choices[0].delta.content, a fragment of the reply; `finish_reason` is null until the last frame
 * (as in OpenAI's chat-completion chunks).
 */
export function sseFrame(text: string): string {
  return `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;
}

/**
 * A frame about an action of the turn (issue 34): the spec's frame with an empty delta.content, so a
 * client that reads only choices[0].delta.content sees nothing of it, and an additive `action`.
 */
export function sseActionFrame(action: ActionFrame): string {
  return `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: '' }, finish_reason: null }], action })}\n\n`;
}

/** Why an answer broke off, as the last frame's `error` object. */
export interface StreamFailure {
  code: string;
  message: string;
}

/**
 * The last frame of every stream, saying how it ended: `finish_reason: "stop"` when the answer is
 * complete (and stored); `"error"` with a top-level `error: {code, message}` when it broke off.
 * Its delta.content is an empty string, so every frame keeps the spec's shape. No `[DONE]`.
 */
export function sseFinalFrame(failure?: StreamFailure, answer?: FinishedAnswer): string {
  const choices = [{ index: 0, delta: { content: '' }, finish_reason: failure ? 'error' : 'stop' }];
  if (failure) return `data: ${JSON.stringify({ choices, error: { code: failure.code, message: failure.message } })}\n\n`;
  if (answer?.held) return `data: ${JSON.stringify({ choices, handoff: { state: 'taken', taken_by: answer.held.taken_by } })}\n\n`;
  return `data: ${JSON.stringify(answer ? { choices, message_id: answer.message_id, source_urls: answer.source_urls } : { choices })}\n\n`;
}

/**
 * What the widget channel's last `stop` frame adds (issue 18): the stored assistant message (for
 * feedback) and the pages the answer drew on (the widget's Sources list). /v1/chat is unchanged.
 */
export interface FinishedAnswer {
  message_id: string;
  source_urls: string[];
  /** Issue 19: a person holds the session; no answer came, the last frame says who has it (`handoff`). */
  held?: { taken_by: string };
}

/**
 * Runs one chat turn for an HTTP client (POST /v1/chat and the widget's chat). Errors before the
 * answer starts (validation, bot access, quota, a chat service that does not answer) are thrown,
 * so they become ordinary JSON errors. Then 200 text/event-stream with one frame per part of the
 * answer as the chat service produces it, and a last frame that says how it ended (sseFinalFrame):
 * a stream that breaks off never looks complete. A client that disconnects cancels the
 * generation; what was produced is still saved by the chat service.
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
      lostAfterMs: this.config.rpcLostAfterMs,
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
    // Until the chat service's end event arrives, the answer counts as broken off.
    let failure: StreamFailure | undefined = { code: 'service_unavailable', message: 'The answer stream ended early' };
    let answer: FinishedAnswer | undefined;
    try {
      for await (const event of turn.events()) {
        if (finished) break;
        if (event.type === 'delta') raw.write(sseFrame(event.text));
        else if (event.type === 'action') raw.write(sseActionFrame(event.action));
        else if (event.type === 'end') {
          failure = undefined;
          if (channel === 'widget') answer = { message_id: event.assistant_message_id, source_urls: event.source_urls ?? [] };
        } else if (event.type === 'held') {
          failure = undefined;
          // /v1/chat keeps the spec's frames: an empty, complete answer; the widget learns who answers.
          if (channel === 'widget') answer = { message_id: event.user_message_id, source_urls: [], held: { taken_by: event.taken_by } };
        }
        else {
          failure = { code: event.code, message: event.message };
          this.logger.error({ request_id: ctx.requestId, turn_id: turn.turnId, code: event.code, err: event.message, stored: event.stored }, 'chat stream ended with an error');
        }
      }
    } catch (err) {
      failure = { code: 'service_unavailable', message: err instanceof StreamLost ? 'The answer broke off: the chat service working on it stopped' : err instanceof StreamIdle ? 'The answer stopped arriving' : 'The answer stream broke off' };
      this.logger.error({ request_id: ctx.requestId, turn_id: turn.turnId, err: (err as Error).message }, 'chat stream broke off');
    } finally {
      turn.close();
      streamsOpen.dec({ channel });
      if (!finished) {
        finished = true;
        raw.end(sseFinalFrame(failure, answer));
      }
    }
  }
}
