import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { Msg, NatsConnection, NatsError, Subscription, createInbox, headers as natsHeaders } from 'nats';
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
  /** `_INBOX.<unique>.`: each request replies to this prefix plus its own token. */
  private readonly inbox = `${createInbox()}.`;
  private readonly pending = new Map<string, Pending>();
  private subscription: Subscription | null = null;
  private next = 0;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(RPC_TIMEOUT_MS) private readonly defaultTimeoutMs: number,
  ) {}

  async send<S extends RpcSubject>(subject: S, data: RpcRequest<S>, ctx?: CallerContext, opts: { timeoutMs?: number } = {}): Promise<RpcResponse<S>> {
    const metered = meters(subject);
    const started = performance.now();
    try {
      const response = await this.request(subject, data, ctx, opts);
      metered.ok.inc();
      return response;
    } catch (err) {
      clientRequests.inc({ subject, outcome: err instanceof DomainError ? err.code : 'internal_error' });
      throw err;
    } finally {
      metered.duration.observe((performance.now() - started) / 1000);
    }
  }

  private async request<S extends RpcSubject>(subject: S, data: RpcRequest<S>, ctx: CallerContext | undefined, opts: { timeoutMs?: number }): Promise<RpcResponse<S>> {
    const token = (this.next = (this.next + 1) % Number.MAX_SAFE_INTEGER).toString(36);
    const envelope: Envelope<RpcRequest<S>> = { ctx, data };
    const body = Buffer.from(JSON.stringify({ pattern: subject, data: envelope, id: token }));
    // NATS refuses messages over the server's max_payload (1 MB by default): say so plainly.
    const maxPayload = this.nc.info?.max_payload;
    if (maxPayload && body.length > maxPayload - 4096) {
      throw new BadRequest(`The request is too large to process (${body.length} bytes once encoded; the limit is about ${maxPayload - 4096})`);
    }
    const h = ctx?.requestId ? natsHeaders() : undefined;
    if (h && ctx?.requestId) h.set('x-request-id', ctx.requestId);
    const raw = await new Promise<Msg>((resolve, reject) => {
      const timeoutMs = opts.timeoutMs ?? this.defaultTimeoutMs;
      const timer = setTimeout(() => {
        this.pending.delete(token);
        reject(new ServiceUnavailable(serviceOf(subject), 'no reply in time'));
      }, timeoutMs);
      this.pending.set(token, { resolve, reject, timer, subject });
      try {
        this.listen();
        this.nc.publish(subject, body, { reply: this.inbox + token, headers: h });
      } catch (err) {
        this.settle(token)?.reject(toDomainError(err instanceof NatsError ? { code: err.code, message: err.message } : err, subject));
      }
    });
    // An empty reply with status 503 is NATS saying that nobody listens on the subject.
    if (raw.data.length === 0 && raw.headers?.code === 503) throw new ServiceUnavailable(serviceOf(subject), 'no instance is running');
    let reply: NestReply;
    try {
      reply = JSON.parse(utf8.decode(raw.data)) as NestReply;
    } catch (err) {
      throw toDomainError(err, subject);
    }
    if (reply.err !== undefined && reply.err !== null) throw toDomainError(reply.err, subject);
    if (reply.status === 'error') throw toDomainError(new Error('no handler'), subject);
    return reply.response as RpcResponse<S>;
  }

  /**
   * One reply subscription for every request of this process (`<inbox>.*`; the token after the
   * prefix names the request), made on first use. nats.js's own `request` also multiplexes, but
   * allocates a timer promise, a race and an Error (its "cancelled" rejection) per request.
   */
  private listen(): void {
    if (this.subscription) return;
    const prefixLength = this.inbox.length;
    this.subscription = this.nc.subscribe(`${this.inbox}*`, {
      callback: (err, msg) => {
        if (err) {
          // The subscription ended (connection closed or drained): nothing more will arrive.
          for (const token of [...this.pending.keys()]) {
            const p = this.settle(token);
            p?.reject(toDomainError(err instanceof NatsError ? { code: err.code, message: err.message } : err, p.subject));
          }
          return;
        }
        this.settle(msg.subject.slice(prefixLength))?.resolve(msg);
      },
    });
    void this.subscription.closed.then(() => {
      this.subscription = null;
      for (const token of [...this.pending.keys()]) {
        const p = this.settle(token);
        p?.reject(new ServiceUnavailable(serviceOf(p.subject), 'messaging is unavailable'));
      }
    });
  }

  private settle(token: string): Pending | undefined {
    const p = this.pending.get(token);
    if (!p) return undefined;
    this.pending.delete(token);
    clearTimeout(p.timer);
    return p;
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.drain().catch(() => undefined);
  }
}

interface Pending {
  resolve: (msg: Msg) => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout;
  subject: string;
}

const utf8 = new TextDecoder();

/** The labelled metric children of one subject, made once (prom-client hashes labels on every call otherwise). */
const meterCache = new Map<string, { ok: { inc(): void }; duration: { observe(v: number): void } }>();
function meters(subject: string) {
  let m = meterCache.get(subject);
  if (!m) {
    m = { ok: clientRequests.labels({ subject, outcome: 'ok' }), duration: clientDuration.labels({ subject }) };
    meterCache.set(subject, m);
  }
  return m;
}
