'use strict';
// Talking to the services directly over NATS, the way the gateway does (libs/messaging
// RpcClient and apps/gateway/src/chat), for benchmarks that measure a path without the gateway:
//   NestRpc       request/reply in the Nest microservices wire format: {pattern, data: {ctx,
//                 data}, id} in, {id, response | err} out, x-request-id header;
//   chatTurn      one chat turn as ChatController runs it: subscribe the turn's stream subject,
//                 request chat.turn.start, read delta events until end/error;
//   Wiretap       a passive subscriber to every subject that timestamps the messages of each
//                 request (by x-request-id) on the bus: where the time of a turn goes, hop by hop.
const { randomUUID } = require('node:crypto');
const { connect, headers: natsHeaders } = require('nats');

const now = () => Number(process.hrtime.bigint()) / 1e6;

class RpcError extends Error {
  constructor(subject, payload) {
    super(`${subject} answered an error: ${JSON.stringify(payload)}`);
    this.payload = payload;
  }
}

class NestRpc {
  constructor(nc, timeoutMs = 5000) {
    this.nc = nc;
    this.timeoutMs = timeoutMs;
  }

  static async connect(url, name) {
    const nc = await connect({ servers: [url], name, noAsyncTraces: true });
    return new NestRpc(nc);
  }

  async send(subject, data, ctx, timeoutMs = this.timeoutMs) {
    const body = Buffer.from(JSON.stringify({ pattern: subject, data: { ctx, data }, id: randomUUID() }));
    const h = natsHeaders();
    if (ctx && ctx.requestId) h.set('x-request-id', ctx.requestId);
    const msg = await this.nc.request(subject, body, { timeout: timeoutMs, headers: h });
    const reply = JSON.parse(Buffer.from(msg.data).toString('utf8'));
    if (reply.err !== undefined && reply.err !== null) throw new RpcError(subject, reply.err);
    if (reply.status === 'error') throw new RpcError(subject, reply);
    return reply.response;
  }

  async close() {
    if (!this.nc.isClosed()) await this.nc.drain().catch(() => undefined);
  }
}

/**
 * One chat turn straight to the chat service, exactly as ChatController does it: the stream
 * subject `_SA.chat.<turnId>` is subscribed before chat.turn.start is sent, then the events are
 * read until `end` or `error`. Times in ms from the start:
 *   startMs       the ChatTurnStarted reply (the gateway writes the response headers then);
 *   firstDeltaMs  the first delta event on the stream subject (may come before startMs);
 *   firstByteMs   max(startMs, firstDeltaMs): when a gateway that cost nothing could write the
 *                 first SSE frame (it writes frames only after the start reply), i.e. the figure
 *                 to compare with the time to first frame through HTTP;
 *   endMs         the end (or error) event.
 */
function chatTurn(rpc, body, ctx, { idleTimeoutMs = 30000, startTimeoutMs = 10000 } = {}) {
  const turnId = randomUUID();
  const subject = `_SA.chat.${turnId}`;
  const started = now();
  return new Promise((resolve, reject) => {
    const out = { turnId, startMs: null, firstDeltaMs: null, firstByteMs: null, endMs: null, text: '', deltas: 0, end: null, error: null, started: null };
    let timer = null;
    let settled = false;
    const finish = (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sub.unsubscribe();
      if (err) return reject(err);
      if (out.firstDeltaMs !== null) out.firstByteMs = Math.max(out.startMs, out.firstDeltaMs);
      return resolve(out);
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(new Error(`turn ${turnId}: no event for ${idleTimeoutMs} ms`)), idleTimeoutMs);
    };
    const maybeDone = () => {
      if (out.endMs !== null && out.startMs !== null) finish(null);
    };
    const sub = rpc.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return finish(err);
        const t = now() - started;
        arm();
        let ev;
        try {
          ev = JSON.parse(Buffer.from(msg.data).toString('utf8'));
        } catch {
          return undefined;
        }
        if (ev.type === 'delta') {
          if (out.firstDeltaMs === null) out.firstDeltaMs = t;
          out.deltas++;
          out.text += ev.text;
        } else if (ev.type === 'end' || ev.type === 'error') {
          out.endMs = t;
          if (ev.type === 'end') out.end = ev;
          else out.error = ev;
          maybeDone();
        }
        return undefined;
      },
    });
    arm();
    rpc
      .send('chat.turn.start', { ...body, streamSubject: subject, turnId, channel: 'api' }, ctx, startTimeoutMs)
      .then((started_) => {
        out.startMs = now() - started;
        out.started = started_;
        maybeDone();
      })
      .catch(finish);
  });
}

/** The RPC subjects of a chat turn, for the wiretap's timelines. */
const TURN_SUBJECTS = new Set(['chat.turn.start', 'bots.bot.describe', 'bots.bot.list', 'knowledge.passage.search', 'bots.bot.check']);

/**
 * Subscribes to every subject (`>`) on its own connection and records, per request id, when each
 * request of a turn and its reply crossed the bus, and when the turn's first delta and end event
 * did. Times are this process's clock when the message arrived here (a constant delivery delay
 * later than the server saw it), so differences between two events are what to read.
 */
class Wiretap {
  static async start(url) {
    const w = new Wiretap();
    w.nc = await connect({ servers: [url], name: 'bench-wiretap', noAsyncTraces: true });
    w.turns = new Map(); // requestId -> { events: [{t, what}] }
    w.replies = new Map(); // reply subject -> { requestId, subject }
    w.streams = new Map(); // turnId -> requestId
    w.enabled = false;
    w.other = new Map();
    w.sub = w.nc.subscribe('>', { callback: (err, msg) => (err ? undefined : w.onMessage(msg)) });
    await w.nc.flush();
    return w;
  }

  onMessage(msg) {
    if (!this.enabled) return;
    const t = now();
    const s = msg.subject;
    if (TURN_SUBJECTS.has(s)) {
      const requestId = msg.headers ? msg.headers.get('x-request-id') : '';
      if (!requestId) return;
      const turn = this.turn(requestId);
      turn.events.push({ t, what: `${s} >` });
      if (msg.reply) this.replies.set(msg.reply, { requestId, subject: s });
      if (s === 'chat.turn.start') {
        try {
          const body = JSON.parse(Buffer.from(msg.data).toString('utf8'));
          this.streams.set(body.data.data.turnId, requestId);
        } catch {
          // not a request we know
        }
      }
      return;
    }
    const reply = this.replies.get(s);
    if (reply) {
      this.replies.delete(s);
      this.turn(reply.requestId).events.push({ t, what: `${reply.subject} <` });
      return;
    }
    if (s.startsWith('_SA.chat.')) {
      const requestId = this.streams.get(s.slice('_SA.chat.'.length));
      if (!requestId) return;
      let type = 'event';
      try {
        type = JSON.parse(Buffer.from(msg.data).toString('utf8')).type;
      } catch {
        // keep 'event'
      }
      const turn = this.turn(requestId);
      if (type === 'delta' && !turn.events.some((e) => e.what === 'first delta')) turn.events.push({ t, what: 'first delta' });
      else if (type === 'end' || type === 'error') turn.events.push({ t, what: type });
      return;
    }
    const kind = s.startsWith('_INBOX.') ? '_INBOX.* (other replies)' : s.split('.').slice(0, 2).join('.');
    this.other.set(kind, (this.other.get(kind) || 0) + 1);
  }

  turn(requestId) {
    let turn = this.turns.get(requestId);
    if (!turn) {
      turn = { events: [] };
      this.turns.set(requestId, turn);
    }
    return turn;
  }

  /** The events of one request id ({what -> time}; the first of each kind). */
  timeline(requestId) {
    const turn = this.turns.get(requestId);
    const out = {};
    for (const e of turn ? turn.events : []) if (out[e.what] === undefined) out[e.what] = e.t;
    return out;
  }

  async close() {
    if (!this.nc.isClosed()) await this.nc.drain().catch(() => undefined);
  }
}

module.exports = { NestRpc, RpcError, chatTurn, Wiretap, now };
