import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { NatsConnection, NatsError, headers as natsHeaders } from 'nats';
import { TimeoutError } from 'rxjs';
import { CallerContext, Envelope, RpcRequest, RpcResponse, RpcSubject } from '@sa/contracts';
import { BadRequest, DomainError, ServiceUnavailable } from '@sa/errors';
import { counter, histogram } from '@sa/metrics';

export const NATS_CONNECTION = Symbol('NATS_CONNECTION');
export const RPC_TIMEOUT_MS = Symbol('RPC_TIMEOUT_MS');

function serviceOf(subject: string): string {
  return subject.split('.')[0];
}

/** Converts whatever a NATS request failed with into a DomainError. */
export function toDomainError(err: unknown, subject: string): DomainError {
  if (err instanceof DomainError) return err;
  const fromPayload = DomainError.fromPayload(err);
  if (fromPayload) return fromPayload;
  if (err instanceof TimeoutError) return new ServiceUnavailable(serviceOf(subject), 'no reply in time');
  const code = (err as { code?: unknown })?.code;
  const message = String((err as { message?: unknown })?.message ?? err);
  if (code === 'TIMEOUT' || /timeout/i.test(message)) return new ServiceUnavailable(serviceOf(subject), 'no reply in time');
  // nats.js says 'no responders' (503); Nest's NATS client wraps it as EmptyResponseException.
  if (code === '503' || code === 503 || /no responders|no subscribers listening/i.test(message)) return new ServiceUnavailable(serviceOf(subject), 'no instance is running');
  if (/disconnect|closed|connection/i.test(message)) return new ServiceUnavailable(serviceOf(subject), 'messaging is unavailable');
  return new DomainError('internal_error', `Unexpected reply from the ${serviceOf(subject)} service`);
}

/** The reply a Nest NATS microservice sends for a request: `{id, response}` or `{id, err}`. */
interface NestReply {
  id?: string;
  response?: unknown;
  err?: unknown;
  status?: string;
  isDisposed?: boolean;
}

/**
 * The only way to call another service: typed by the contract map, bounded by a timeout, and
 * failing with a DomainError (the remote error, or service_unavailable) instead of hanging.
 *
 * It speaks the Nest microservices NATS wire format (`{pattern, data, id}` in, `{id, response |
 * err}` out) directly through nats.js: requests share one multiplexed reply subscription, where
 * Nest's own client subscribed and unsubscribed a reply inbox per request.
 */
const clientRequests = counter({ name: 'sa_rpc_client_requests_total', help: 'NATS requests sent, by subject and outcome (ok or the error code)', labelNames: ['subject', 'outcome'] as const });
const clientDuration = histogram({ name: 'sa_rpc_client_duration_seconds', help: 'Round trip of a NATS request, by subject', labelNames: ['subject'] as const });

@Injectable()
export class RpcClient implements OnApplicationShutdown {
  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(RPC_TIMEOUT_MS) private readonly defaultTimeoutMs: number,
  ) {}

  async send<S extends RpcSubject>(subject: S, data: RpcRequest<S>, ctx?: CallerContext, opts: { timeoutMs?: number } = {}): Promise<RpcResponse<S>> {
    const stop = clientDuration.startTimer({ subject });
    try {
      const response = await this.request(subject, data, ctx, opts);
      clientRequests.inc({ subject, outcome: 'ok' });
      return response;
    } catch (err) {
      clientRequests.inc({ subject, outcome: err instanceof DomainError ? err.code : 'internal_error' });
      throw err;
    } finally {
      stop();
    }
  }

  private async request<S extends RpcSubject>(subject: S, data: RpcRequest<S>, ctx: CallerContext | undefined, opts: { timeoutMs?: number }): Promise<RpcResponse<S>> {
    const envelope: Envelope<RpcRequest<S>> = { ctx, data };
    const body = Buffer.from(JSON.stringify({ pattern: subject, data: envelope, id: randomUUID() }));
    // NATS refuses messages over the server's max_payload (1 MB by default): say so plainly.
    const maxPayload = this.nc.info?.max_payload;
    if (maxPayload && body.length > maxPayload - 4096) {
      throw new BadRequest(`The request is too large to process (${body.length} bytes once encoded; the limit is about ${maxPayload - 4096})`);
    }
    const h = ctx?.requestId ? natsHeaders() : undefined;
    if (h && ctx?.requestId) h.set('x-request-id', ctx.requestId);
    let reply: NestReply;
    try {
      const msg = await this.nc.request(subject, body, { timeout: opts.timeoutMs ?? this.defaultTimeoutMs, headers: h });
      reply = JSON.parse(Buffer.from(msg.data).toString('utf8')) as NestReply;
    } catch (err) {
      throw toDomainError(err instanceof NatsError ? { code: err.code, message: err.message } : err, subject);
    }
    if (reply.err !== undefined && reply.err !== null) throw toDomainError(reply.err, subject);
    if (reply.status === 'error') throw toDomainError(new Error('no handler'), subject);
    return reply.response as RpcResponse<S>;
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.drain().catch(() => undefined);
  }
}
