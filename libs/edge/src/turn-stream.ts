import type { NatsConnection, Subscription } from 'nats';
import type { ChatStreamEvent } from '@sa/contracts';

export class StreamIdle extends Error {}

/**
 * The events of one chat turn, read from the subject the chat service publishes them on. Opened
 * before the turn starts so nothing is missed. Ends on the turn's end or error event; throws
 * StreamIdle when nothing arrives for `idleTimeoutMs` (a chat service that died mid-answer must
 * not leave the visitor waiting forever).
 */
export class TurnStream {
  private readonly sub: Subscription;
  private closed = false;

  constructor(
    nc: NatsConnection,
    readonly subject: string,
    private readonly idleTimeoutMs: number,
  ) {
    this.sub = nc.subscribe(subject);
  }

  async *events(): AsyncGenerator<ChatStreamEvent> {
    const it = this.sub[Symbol.asyncIterator]();
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const idle = new Promise<'idle'>((resolve) => (timer = setTimeout(() => resolve('idle'), this.idleTimeoutMs)));
      const next = await Promise.race([it.next(), idle]);
      clearTimeout(timer);
      if (next === 'idle') throw new StreamIdle(`no part of the answer for ${this.idleTimeoutMs} ms`);
      if (next.done) return;
      let event: ChatStreamEvent;
      try {
        event = JSON.parse(Buffer.from(next.value.data).toString('utf8')) as ChatStreamEvent;
      } catch {
        continue;
      }
      yield event;
      if (event.type === 'end' || event.type === 'error' || event.type === 'held') return;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.sub.unsubscribe();
  }
}
