import { Inject, Injectable, OnApplicationShutdown, Optional } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { Msg, MsgHdrs, NatsConnection, NatsError, Subscription, createInbox, headers as natsHeaders } from 'nats';
import { TimeoutError } from 'rxjs';
import { CallerContext, Envelope, RPC_READS, RpcRequest, RpcResponse, RpcSubject } from '@sa/contracts';
import { BadRequest, DomainError, ServiceUnavailable } from '@sa/errors';
import { counter, histogram } from '@sa/metrics';
import { ALIVE_HEADER, DEFAULT_RPC_LIVENESS, LIVENESS_HEADER, RpcLiveness } from './rpc-liveness';

export const NATS_CONNECTION = Symbol('NATS_CONNECTION');
export const RPC_TIMEOUT_MS = Symbol('RPC_TIMEOUT_MS');
export const RPC_LIVENESS = Symbol('RPC_LIVENESS');

/** Retry-After (seconds) of a 503 for a request no replica answered: a replica is restarting, or the other one takes it. */
export const RPC_RETRY_AFTER_S = 1;
/** Pause before asking again when nobody listened: long enough for a replica that is reconnecting. */
const NO_RESPONDERS_PAUSE_MS = 250;

/** Why a request got no answer: nobody listened (never delivered), the replica went silent, or no answer in time. */
export type Unanswered = 'no_responders' | 'lost' | 'timeout';

/** A request no replica answered; `kind` tells whether it may have run (lost, timeout) or not (no_responders). */
export class RpcUnanswered extends ServiceUnavailable {
  constructor(
    service: string,
    readonly kind: Unanswered,
  ) {
    super(service, kind === 'no_responders' ? 'no instance is running' : kind === 'lost' ? 'the instance working on the request stopped' : 'no reply in time', RPC_RETRY_AFTER_S);
  }
}

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
const clientRetries = counter({ name: 'sa_rpc_client_retries_total', help: 'NATS requests asked a second time, by subject and why (no_responders: nobody listened; lost: the replica working on a read stopped)', labelNames: ['subject', 'reason'] as const });
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
    @Optional() @Inject(RPC_LIVENESS) liveness: RpcLiveness | null = null,
  ) {
    this.liveness = liveness ?? DEFAULT_RPC_LIVENESS;
    if (this.liveness.lostAfterMs <= this.liveness.intervalMs) {
      throw new Error(`RPC_LOST_AFTER_MS (${this.liveness.lostAfterMs}) must be more than RPC_LIVENESS_MS (${this.liveness.intervalMs}): every slow request would be taken for lost`);
    }
    this.plainHeaders = natsHeaders();
    this.plainHeaders.set(LIVENESS_HEADER, String(this.liveness.intervalMs));
  }

  private readonly liveness: RpcLiveness;
  /** The headers of a request without a request id (never changed once made, so shared). */
  private readonly plainHeaders: MsgHdrs;

  /**
   * Sends a request and waits for its answer. A request nobody listened to is asked again once
   * after a pause; one lost with the replica that took it is asked again once, of another replica,
   * when it changes nothing (`idempotent`, by default when the subject is in RPC_READS). Otherwise
   * it fails with service_unavailable and Retry-After: it may have run.
   */
  async send<S extends RpcSubject>(subject: S, data: RpcRequest<S>, ctx?: CallerContext, opts: { timeoutMs?: number; idempotent?: boolean } = {}): Promise<RpcResponse<S>> {
    const metered = meters(subject);
    const started = performance.now();
    try {
      let response: RpcResponse<S>;
      try {
        response = await this.request(subject, data, ctx, opts);
      } catch (err) {
        if (!(err instanceof RpcUnanswered) || !(err.kind === 'no_responders' || (err.kind === 'lost' && (opts.idempotent ?? RPC_READS.has(subject))))) throw err;
        clientRetries.inc({ subject, reason: err.kind });
        if (err.kind === 'no_responders') await new Promise((r) => setTimeout(r, NO_RESPONDERS_PAUSE_MS));
        response = await this.request(subject, data, ctx, opts);
      }
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
    let h = this.plainHeaders;
    if (ctx?.requestId) {
      h = natsHeaders();
      h.set(LIVENESS_HEADER, String(this.liveness.intervalMs));
      h.set('x-request-id', ctx.requestId);
    }
    const raw = await new Promise<Msg>((resolve, reject) => {
      const timeoutMs = opts.timeoutMs ?? this.defaultTimeoutMs;
      const { lostAfterMs, intervalMs } = this.liveness;
      const sent = Date.now();
      // One timer per request: at the timeout, or when the replica has been silent for lostAfterMs
      // (the timer is moved on lazily when it fires after a sign of life, not at every sign).
      const check = (listened = false) => {
        const p = this.pending.get(token);
        if (!p) return;
        const now = Date.now();
        // Past a deadline, listen once more before judging: this process may itself have been
        // stopped past it (a long GC, a starved CPU), and then its timers run before it reads the
        // answer or the signs that wait on its socket. A timer of 1 ms runs after the event loop's
        // next poll phase, which reads them.
        if (!listened && (now - sent >= timeoutMs || now - p.lastSign >= lostAfterMs)) {
          p.timer = setTimeout(() => check(true), 1);
          return;
        }
        // At the timeout, a replica that missed its last sign is taken for lost rather than slow
        // (a timeout shorter than the silence limit would otherwise hide every dead replica).
        if (now - sent >= timeoutMs) this.settle(token)?.reject(new RpcUnanswered(serviceOf(subject), now - p.lastSign > intervalMs * 1.5 ? 'lost' : 'timeout'));
        else if (now - p.lastSign >= lostAfterMs) this.settle(token)?.reject(new RpcUnanswered(serviceOf(subject), 'lost'));
        else p.timer = setTimeout(() => check(), Math.min(sent + timeoutMs, p.lastSign + lostAfterMs) - now);
      };
      const timer = setTimeout(() => check(), Math.min(timeoutMs, lostAfterMs));
      this.pending.set(token, { resolve, reject, timer, subject, lastSign: sent });
      try {
        this.listen();
        this.nc.publish(subject, body, { reply: this.inbox + token, headers: h });
      } catch (err) {
        this.settle(token)?.reject(toDomainError(err instanceof NatsError ? { code: err.code, message: err.message } : err, subject));
      }
    });
    // An empty reply with status 503 is NATS saying that nobody listens on the subject.
    if (raw.data.length === 0 && raw.headers?.code === 503) throw new RpcUnanswered(serviceOf(subject), 'no_responders');
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
        const token = msg.subject.slice(prefixLength);
        // A sign of life is not the answer: it only tells that the replica is still at work.
        if (msg.data.length === 0 && msg.headers?.has(ALIVE_HEADER)) {
          const p = this.pending.get(token);
          if (p) p.lastSign = Date.now();
          return;
        }
        this.settle(token)?.resolve(msg);
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
  /** When the request was sent or the replica last signed that it is at work on it. */
  lastSign: number;
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
