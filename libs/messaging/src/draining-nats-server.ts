import { CustomTransportStrategy, MessageHandler, NatsContext, NatsOptions, Server, Transport } from '@nestjs/microservices';
import { isObservable, lastValueFrom } from 'rxjs';
import { type Msg, type NatsConnection, type Subscription, connect, headers as natsHeaders } from 'nats';
import type { Logger } from 'pino';
import { ALIVE_HEADER, LIVENESS_HEADER, requestedInterval } from './rpc-liveness';

type ServerOptions = NonNullable<NatsOptions['options']>;

const utf8 = new TextDecoder();

/** A request that is not JSON, or not a `{pattern, data, id}` packet: answered, never thrown. */
const MALFORMED = { code: 'validation_failed', message: 'The request is not a JSON RPC packet' } as const;

/**
 * The NATS side of every service: a Nest custom transport strategy over nats.js that speaks the
 * wire format of Nest's own NATS transport (`{pattern, data, id}` in, `{id, response | err,
 * isDisposed}` out), so handlers stay `@MessagePattern`s (via `@RpcHandler`) with Nest's
 * interceptors, filters and DI.
 *
 * Why not Nest's ServerNats: on every message it looked the handler up by trying `JSON.parse` of
 * the subject (an exception per request for subjects that are not JSON), decoded through a codec
 * and a context host, and replied through an rxjs subscription; together about a tenth of a small
 * service's CPU per request (bench/README.md). Here each subject's subscription holds its handler.
 *
 * Graceful stop: `stopAccepting()` drains the service's subscriptions at once: the queue group
 * routes new requests to the other replicas, and the requests the server routed here before it saw
 * this replica leave (still in transit) are handled, not dropped (a plain unsubscribe dropped them,
 * and each caller waited out its timeout: a 503 in a rolling restart). `close()` then waits for the
 * drains and for the requests taken to be answered, up to the grace period, and drains the
 * connection, so no reply is lost to a closed connection.
 */
export class DrainingNatsServer extends Server implements CustomTransportStrategy {
  override readonly transportId = Transport.NATS;
  private nc: NatsConnection | null = null;
  private subscriptions: Subscription[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private accepting = true;
  private drained: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly options: ServerOptions,
    private readonly graceMs: number,
    private readonly log: Logger,
  ) {
    super();
  }

  listen(callback: (err?: unknown) => void): void {
    const { queue: _queue, gracefulShutdown: _graceful, gracePeriod: _period, serializer: _s, deserializer: _d, ...connectOptions } = this.options as ServerOptions & Record<string, unknown>;
    connect({ ...connectOptions, noAsyncTraces: true } as Parameters<typeof connect>[0]).then(
      (nc) => {
        this.nc = nc;
        this._status$.next('connected');
        void this.watchStatus(nc);
        for (const [subject, handler] of this.messageHandlers) this.subscribe(nc, subject, handler);
        callback();
      },
      (err: unknown) => callback(err),
    );
  }

  private subscribe(nc: NatsConnection, subject: string, handler: MessageHandler): void {
    const queue = (handler.extras?.['queue'] as string | undefined) ?? (this.options.queue as string | undefined);
    const sub = nc.subscribe(subject, {
      queue,
      callback: (err, msg) => {
        if (err) {
          this.log.error({ err: err.message, subject }, 'NATS subscription error');
          return;
        }
        const handling = this.handle(subject, handler, msg);
        this.inFlight.add(handling);
        void handling.finally(() => this.inFlight.delete(handling));
      },
    });
    this.subscriptions.push(sub);
  }

  private async handle(subject: string, handler: MessageHandler, msg: Msg): Promise<void> {
    let packet: { id?: unknown; data?: unknown };
    try {
      packet = JSON.parse(utf8.decode(msg.data)) as { id?: unknown; data?: unknown };
      if (packet === null || typeof packet !== 'object') throw new TypeError('not an object');
    } catch {
      if (msg.reply) msg.respond(JSON.stringify({ err: MALFORMED, isDisposed: true }));
      return;
    }
    const ctx = new NatsContext([msg.subject, msg.headers as never]);
    const id = packet.id;
    // A packet without an id is an event (Nest's `emit`): run the handler, answer nothing.
    const answer = id !== undefined && msg.reply ? msg : null;
    // Signs of life while this request is worked on, at the pace the caller asked (rpc-liveness.ts).
    const interval = answer ? requestedInterval(msg.headers?.get(LIVENESS_HEADER)) : null;
    const signs = interval && answer ? setInterval(() => sign(answer, signs!), interval) : undefined;
    // The signs never keep a process alive on their own (a handler that never settles would).
    signs?.unref();
    try {
      let result: unknown = await handler(packet.data, ctx);
      if (isObservable(result)) result = await lastValueFrom(result, { defaultValue: undefined });
      answer?.respond(JSON.stringify({ id, response: result, isDisposed: true }));
    } catch (err) {
      // Nest's exception filters turn what a handler throws into the error payload (RpcException).
      if (answer) answer.respond(JSON.stringify({ id, err: toWire(err), isDisposed: true }));
      else this.log.error({ err: toWire(err), subject }, 'event handler failed');
    } finally {
      clearInterval(signs);
    }
  }

  /** Requests being handled now (tests, shutdown logs). */
  get handling(): number {
    return this.inFlight.size;
  }

  stopAccepting(): void {
    if (!this.accepting) return;
    this.accepting = false;
    this.drained = Promise.allSettled(this.subscriptions.map((sub) => Promise.resolve().then(() => sub.drain())));
  }

  async close(): Promise<void> {
    this.stopAccepting();
    const nc = this.nc;
    let drainTimer: NodeJS.Timeout | undefined;
    await Promise.race([this.drained, new Promise((resolve) => (drainTimer = setTimeout(resolve, this.graceMs)))]);
    clearTimeout(drainTimer);
    if (this.inFlight.size) {
      this.log.info({ requests: this.inFlight.size }, 'waiting for NATS requests in flight');
      let timer: NodeJS.Timeout | undefined;
      const expired = await Promise.race([
        Promise.allSettled([...this.inFlight]).then(() => false),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), this.graceMs))),
      ]);
      clearTimeout(timer);
      if (expired) this.log.warn({ requests: this.inFlight.size, grace_ms: this.graceMs }, 'NATS requests still in flight after the grace period');
    }
    if (nc && !nc.isClosed()) await nc.drain().catch(() => undefined);
    this.nc = null;
  }

  on(): void {
    throw new Error('DrainingNatsServer has no events to listen to; watch its status instead');
  }

  unwrap<T>(): T {
    if (!this.nc) throw new Error('Not connected: call listen() first');
    return this.nc as T;
  }

  private async watchStatus(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') {
        this._status$.next('disconnected');
        this.log.warn({ server: String(s.data) }, 'NATS disconnected');
      } else if (s.type === 'reconnecting') this._status$.next('reconnecting');
      else if (s.type === 'reconnect') {
        this._status$.next('connected');
        this.log.info({ server: String(s.data) }, 'NATS reconnected');
      } else if (s.type === 'error') this.log.error({ err: String(s.data) }, 'NATS error');
    }
  }
}

const EMPTY = new Uint8Array(0);

/** An empty message with the Sa-Alive header to the request's reply subject; the signs stop once the connection is closed. */
function sign(request: Msg, signs: NodeJS.Timeout): void {
  const h = natsHeaders();
  h.set(ALIVE_HEADER, '1');
  try {
    request.respond(EMPTY, { headers: h });
  } catch {
    // The connection is closed: the caller hears nothing more and decides on its own.
    clearInterval(signs);
  }
}

/** What goes on the wire for an error: the payload a filter produced, or a bare internal error. */
function toWire(err: unknown): unknown {
  if (err && typeof err === 'object' && !(err instanceof Error)) return err;
  return { code: 'internal_error', message: 'Internal error' };
}
