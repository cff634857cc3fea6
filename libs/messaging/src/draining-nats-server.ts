import { ServerNats } from '@nestjs/microservices';
import type { NatsOptions } from '@nestjs/microservices';
import type { Msg, NatsConnection, Subscription } from 'nats';
import type { Logger } from 'pino';

/**
 * Nest's NATS server with a graceful stop. `stopAccepting()` unsubscribes from the service's
 * subjects at once (the queue group routes new requests to the other replicas); `close()` then
 * waits for the requests already taken to be answered, up to the grace period, and drains the
 * connection, so no reply is lost to a closed connection. (Nest's own graceful option waits a
 * fixed time instead, whatever is in flight.)
 */
export class DrainingNatsServer extends ServerNats {
  private readonly inFlight = new Set<Promise<unknown>>();
  private accepting = true;

  constructor(
    options: NonNullable<NatsOptions['options']>,
    private readonly graceMs: number,
    private readonly log: Logger,
  ) {
    super(options);
  }

  override handleMessage(channel: string, natsMsg: Msg): Promise<unknown> {
    const handling = super.handleMessage(channel, natsMsg as never);
    this.inFlight.add(handling);
    void handling.finally(() => this.inFlight.delete(handling)).catch(() => undefined);
    return handling;
  }

  /** Requests being handled now (tests, shutdown logs). */
  get handling(): number {
    return this.inFlight.size;
  }

  stopAccepting(): void {
    if (!this.accepting) return;
    this.accepting = false;
    // Nest keeps them in a private field; unsubscribing is the documented way to leave a queue group.
    for (const sub of ((this as unknown as { subscriptions: Subscription[] }).subscriptions ?? [])) sub.unsubscribe();
  }

  override async close(): Promise<void> {
    this.stopAccepting();
    const nc = (this as unknown as { natsClient: NatsConnection | null }).natsClient;
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
    await super.close();
  }
}
