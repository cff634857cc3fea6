import type { NatsConnection, Subscription } from 'nats';
import { CHAT_STREAM_ALIVE, type ChatStreamEvent, type ChatStreamSign } from '@sa/contracts';

/** How long an edge listens past a deadline before it judges the turn idle or its replica lost (see events()). */
export const LISTEN_GRACE_MS = 250;

const WAITED = Symbol('waited');
const LISTENED = Symbol('listened');

/** Resolves to WAITED after `ms`. */
function waited(ms: number): { done: Promise<typeof WAITED>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<typeof WAITED>((resolve) => (timer = setTimeout(() => resolve(WAITED), ms)));
  return { done, cancel: () => clearTimeout(timer) };
}

/**
 * Resolves to LISTENED after `ms` and then one turn of the event loop past its poll phase (a
 * setImmediate), so this process has read its sockets at least once after the time was up.
 */
function listened(ms: number): { done: Promise<typeof LISTENED>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const done = new Promise<typeof LISTENED>((resolve) => (timer = setTimeout(() => (immediate = setImmediate(() => resolve(LISTENED))), ms)));
  return {
    done,
    cancel: () => {
      clearTimeout(timer);
      if (immediate) clearImmediate(immediate);
    },
  };
}

/** Nothing of the answer arrived for the idle time: the model stalled, or the chat service is gone. */
export class StreamIdle extends Error {}

/** The chat replica working on the turn stopped signing that it is alive: it died (issue 36). */
export class StreamLost extends StreamIdle {}

/**
 * The events of one chat turn, read from the subject the chat service publishes them on. Opened
 * before the turn starts so nothing is missed. Ends on the turn's end or error event; throws
 * StreamIdle when no event arrives for `idleTimeoutMs` (a model that stalls must not leave the
 * visitor waiting forever), and StreamLost when the chat replica, which signs that it is alive
 * every RPC_LIVENESS_MS while it works on the turn, has been silent for `lostAfterMs` (a replica
 * that died is noticed in seconds, not at the idle timeout). Signs count only once one has
 * arrived: a chat service that sends none is judged by the idle timeout alone.
 */
export class TurnStream {
  private readonly sub: Subscription;
  private closed = false;

  constructor(
    nc: NatsConnection,
    readonly subject: string,
    private readonly idleTimeoutMs: number,
    private readonly lostAfterMs: number,
  ) {
    this.sub = nc.subscribe(subject);
  }

  async *events(): AsyncGenerator<ChatStreamEvent> {
    const it = this.sub[Symbol.asyncIterator]();
    let lastEvent = Date.now();
    // Any frame shows the replica alive; silence counts only once it has sent a sign.
    let lastHeard = lastEvent;
    let signing = false;
    let next = it.next();
    for (;;) {
      const now = Date.now();
      const idleLeft = lastEvent + this.idleTimeoutMs - now;
      const lostLeft = signing ? lastHeard + this.lostAfterMs - now : Infinity;
      // Past a deadline, this process listens once more before judging: it may itself have been
      // stopped past it (a long GC, a starved CPU), and then its timers run before it reads what
      // the replica sent meanwhile, still waiting on the socket. Silence is judged only after
      // LISTEN_GRACE_MS in which it could read (issue 36: 5,000 open streams).
      const overdue = idleLeft <= 0 || lostLeft <= 0;
      const deadline = overdue ? listened(LISTEN_GRACE_MS) : waited(Math.min(idleLeft, lostLeft));
      const got = await Promise.race([next, deadline.done]);
      deadline.cancel();
      if (got === WAITED) continue; // the same `next` is awaited again; the deadlines are checked above
      if (got === LISTENED) {
        if (idleLeft <= 0) throw new StreamIdle(`no part of the answer for ${this.idleTimeoutMs} ms`);
        throw new StreamLost(`the chat service working on the answer was silent for ${this.lostAfterMs} ms`);
      }
      if (got.done) return;
      next = it.next();
      let event: ChatStreamEvent | ChatStreamSign;
      try {
        event = JSON.parse(Buffer.from(got.value.data).toString('utf8')) as ChatStreamEvent | ChatStreamSign;
      } catch {
        continue;
      }
      lastHeard = Date.now();
      if (event.type === CHAT_STREAM_ALIVE) {
        signing = true;
        continue;
      }
      lastEvent = lastHeard;
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
