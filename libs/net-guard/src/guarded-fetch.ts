import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { CheckedTarget, Resolver, staticCheck, systemResolver } from './check-url';
import { GuardError } from './guard-error';
import { LookupContext, OWNED_HEADERS, contentEncoding, declaredTooLarge, decoderFor, networkError, openRequest, tooLarge, where } from './guarded-request';
import { OutboundPolicy } from './outbound-policy';

export interface GuardedFetchOptions {
  method?: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  /** Sets the Accept header. */
  accept?: string;
  /** Cancels the request (a GuardError with code 'network' is thrown). */
  signal?: AbortSignal;
  /** Follow 3xx responses (default true). When false a 3xx is returned as is. */
  followRedirects?: boolean;
  /**
   * Settle as soon as the status and headers arrive, with an empty body, and close the
   * connection without reading the body (a webhook delivery needs the status only).
   */
  discardBody?: boolean;
  /** DNS for host names; the system resolver (dns.lookup, all records) by default. For tests. */
  resolver?: Resolver;
  /**
   * Connections kept open between requests (per origin), for a caller that sends many requests to
   * the same endpoints. Without it every request opens a connection of its own and closes it.
   */
  connections?: KeptConnections;
}

/** How much of a response body is read to keep its connection (discardBody), and for how long. */
const DRAIN_MAX_BYTES = 64 * 1024;
const DRAIN_MAX_MS = 1000;

/**
 * Connections kept open between requests, one pool per origin (scheme, host and port). A
 * connection is only ever opened through the guarded lookup, so a reused one goes to an address
 * that was checked when it was opened, and one origin's connections never serve another. An idle
 * connection is closed after `idleMs`, or earlier when the server announces a shorter Keep-Alive
 * timeout (Node's agent leaves a second's margin); beyond `maxOrigins` the least recently used
 * origin's pool is forgotten (its idle connections close on their timeout).
 */
export class KeptConnections {
  private readonly agents = new Map<string, http.Agent>();
  private readonly policies = new WeakMap<OutboundPolicy, number>();
  private policyCount = 0;
  private readonly maxOrigins: number;
  private readonly maxIdlePerOrigin: number;

  constructor(private readonly opts: { idleMs: number; maxOrigins?: number; maxIdlePerOrigin?: number }) {
    this.maxOrigins = opts.maxOrigins ?? 1000;
    this.maxIdlePerOrigin = opts.maxIdlePerOrigin ?? 16;
  }

  /**
   * The pool of the URL's origin under this policy (created on first use): a connection checked
   * under one policy is never used under another.
   */
  agentFor(url: URL, policy: OutboundPolicy): http.Agent {
    let policyId = this.policies.get(policy);
    if (policyId === undefined) this.policies.set(policy, (policyId = ++this.policyCount));
    const origin = `${policyId} ${url.origin}`;
    let agent = this.agents.get(origin);
    if (agent) {
      this.agents.delete(origin); // most recently used last
    } else {
      const options = { keepAlive: true, timeout: this.opts.idleMs, maxFreeSockets: this.maxIdlePerOrigin, scheduling: 'lifo' as const };
      agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    }
    this.agents.set(origin, agent);
    if (this.agents.size > this.maxOrigins) {
      // Forgotten, not destroyed: its requests in flight finish, its idle connections time out.
      const [oldest] = this.agents.keys();
      this.agents.delete(oldest!);
    }
    return agent;
  }

  /** Closes every connection (idle or not) and forgets the pools. */
  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}

export interface GuardedResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". When the body was decompressed, content-encoding and content-length are removed. */
  headers: Record<string, string>;
  /** The body, decompressed when the server used gzip, deflate or br. */
  body: Buffer;
  /** The final URL, after redirects. */
  url: string;
  /** Every redirect target followed, in order. */
  redirects: string[];
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers not carried to another origin on redirect. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

interface Exchange {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Null for a redirect that is going to be followed. */
  body: Buffer | null;
  decoded: boolean;
}

interface HopContext extends LookupContext {
  signal: AbortSignal;
  /** Whether a response with this status and headers is a redirect to follow (no body read). */
  follows: (status: number, headers: http.IncomingHttpHeaders) => boolean;
  discardBody: boolean;
  connections: KeptConnections | undefined;
}

/** One request/response on one connection, to an already statically checked target. */
function exchange(target: CheckedTarget, method: string, headers: Record<string, string | string[]>, body: Buffer | undefined, ctx: HopContext): Promise<Exchange> {
  const { policy, signal } = ctx;
  return new Promise<Exchange>((resolve, reject) => {
    const abortError = (): GuardError => {
      const reason: unknown = signal.reason;
      return reason instanceof GuardError ? new GuardError(reason.code, reason.message, target.url.href) : new GuardError('network', 'the request was cancelled', target.url.href);
    };
    if (signal.aborted) {
      reject(abortError());
      return;
    }

    let settled = false;
    // Without kept connections a fresh one per request: no global agent, no proxy, no reuse.
    const { request, failure } = openRequest(target, method, headers, ctx, ctx.connections ? ctx.connections.agentFor(target.url, policy) : false);

    const finish = (err: GuardError | null, value?: Exchange): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (err) {
        request.destroy();
        reject(err);
      } else {
        resolve(value as Exchange);
      }
    };
    const onAbort = (): void => finish(abortError());
    signal.addEventListener('abort', onAbort, { once: true });

    request.on('error', (err) => finish(failure(err)));
    request.on('response', (res) => {
      if (settled) {
        res.destroy();
        return;
      }
      const status = res.statusCode ?? 0;
      if (ctx.follows(status, res.headers)) {
        res.on('error', () => undefined); // the body of a followed redirect is never read
        finish(null, { status, headers: res.headers, body: null, decoded: false });
        request.destroy();
        return;
      }
      if (ctx.discardBody) {
        res.on('error', () => undefined);
        const result: Exchange = { status, headers: res.headers, body: Buffer.alloc(0), decoded: false };
        // A kept connection is reused once the body has gone by: a small one is read (and
        // dropped) for that, for a second at most; a large, unannounced or slow one closes it.
        const declared = status === 204 || status === 304 || method === 'HEAD' ? 0 : Number(res.headers['content-length'] ?? NaN);
        if (!ctx.connections || !(declared <= DRAIN_MAX_BYTES)) {
          finish(null, result);
          res.destroy();
          return;
        }
        const drain = setTimeout(() => {
          finish(null, result);
          res.destroy();
        }, DRAIN_MAX_MS);
        res.once('end', () => {
          clearTimeout(drain);
          finish(null, result);
        });
        res.once('close', () => {
          clearTimeout(drain);
          finish(null, result);
        });
        res.resume();
        return;
      }
      const declaredError = declaredTooLarge(res, method, policy, target);
      if (declaredError) {
        finish(declaredError);
        return;
      }
      const encoding = contentEncoding(res);
      const decoder = decoderFor(encoding);
      const source: Readable = decoder ? res.pipe(decoder) : res;
      const chunks: Buffer[] = [];
      let total = 0;
      source.on('data', (chunk: Buffer) => {
        if (settled) return;
        total += chunk.length;
        if (total > policy.maxBytes) {
          finish(tooLarge(policy.maxBytes, target));
          decoder?.destroy();
          res.destroy();
          return;
        }
        chunks.push(chunk);
      });
      source.on('end', () => finish(null, { status, headers: res.headers, body: Buffer.concat(chunks), decoded: decoder !== null }));
      res.on('error', (err) => finish(networkError(err, target)));
      res.on('close', () => {
        if (!res.complete) finish(new GuardError('network', `the connection to ${where(target)} closed before the whole response arrived`, target.url.href));
      });
      decoder?.on('error', (err) => finish(new GuardError('network', `could not decode the ${encoding} response from ${where(target)}: ${err.message}`, target.url.href)));
    });
    request.end(body);
  });
}

function flattenHeaders(headers: http.IncomingHttpHeaders, decoded: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (decoded && (name === 'content-encoding' || name === 'content-length')) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function requestHeaders(policy: OutboundPolicy, opts: GuardedFetchOptions): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(opts.headers ?? {})) {
    const lower = name.toLowerCase();
    if (!OWNED_HEADERS.has(lower)) out[lower] = value;
  }
  if (opts.accept !== undefined) out['accept'] = opts.accept;
  if (out['user-agent'] === undefined) out['user-agent'] = policy.userAgent;
  out['accept-encoding'] = 'gzip, deflate, br';
  if (!opts.connections) out['connection'] = 'close';
  return out;
}

/**
 * Fetches a URL under the outbound policy. Every hop (the first URL and each redirect target)
 * is checked in full before anything is connected: scheme, credentials, port, host name, and
 * the addresses that the socket then connects to (checked inside the socket's own lookup, so a
 * name cannot resolve to something else between the check and the connection). One deadline
 * (policy.timeoutMs) covers every hop and the whole body; the body is capped at policy.maxBytes
 * after decompression. Throws GuardError only.
 */
export async function guardedFetch(url: string, policy: OutboundPolicy, opts: GuardedFetchOptions = {}): Promise<GuardedResponse> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new GuardError('timeout', `timed out after ${policy.timeoutMs} ms`)), policy.timeoutMs);
  const onCancel = (): void => controller.abort(new GuardError('network', 'the request was cancelled'));
  if (opts.signal?.aborted) onCancel();
  opts.signal?.addEventListener('abort', onCancel, { once: true });

  const followRedirects = opts.followRedirects ?? true;
  const resolver = opts.resolver ?? systemResolver;
  const redirects: string[] = [];
  let current = url;
  let method = (opts.method ?? 'GET').toUpperCase();
  let body = opts.body === undefined ? undefined : Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body);
  const headers = requestHeaders(policy, opts);
  let previous: URL | null = null;

  try {
    for (;;) {
      const blockedPrefix = redirects.length > 0 ? `redirect to ${current} refused: ` : '';
      const check = staticCheck(current, policy);
      if (!check.ok) throw new GuardError(check.code, `${check.code === 'blocked' ? blockedPrefix : ''}${check.reason}`, current);
      const { target } = check;
      if (previous && previous.origin !== target.url.origin) for (const h of CREDENTIAL_HEADERS) delete headers[h];

      const hopHeaders: Record<string, string | string[]> = { ...headers, host: target.url.host };
      if (body !== undefined) hopHeaders['content-length'] = String(body.length);
      const result = await exchange(target, method, hopHeaders, body, {
        policy,
        resolver,
        signal: controller.signal,
        blockedPrefix,
        discardBody: opts.discardBody ?? false,
        connections: opts.connections,
        follows: (status, h) => followRedirects && REDIRECT_STATUSES.has(status) && typeof h.location === 'string' && h.location !== '',
      });

      if (result.body !== null) {
        return { status: result.status, headers: flattenHeaders(result.headers, result.decoded), body: result.body, url: target.url.href, redirects };
      }

      const location = result.headers.location as string;
      let next: URL;
      try {
        next = new URL(location, target.url);
      } catch {
        throw new GuardError('bad_url', `${target.url.href} redirected to an invalid URL ("${location}")`, target.url.href);
      }
      if (redirects.length >= policy.maxRedirects) {
        throw new GuardError('too_many_redirects', `more than ${policy.maxRedirects} redirects (the last one pointed to ${next.href})`, target.url.href);
      }
      // As browsers do: 303 (and 301/302 after a POST) continue as GET without the body.
      if ((result.status === 303 && method !== 'HEAD') || ((result.status === 301 || result.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        delete headers['content-type'];
      }
      redirects.push(next.href);
      previous = target.url;
      current = next.href;
    }
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onCancel);
  }
}
