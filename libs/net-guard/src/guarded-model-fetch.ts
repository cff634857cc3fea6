import type { Readable } from 'node:stream';
import { CheckedTarget, Resolver, staticCheck, systemResolver } from './check-url';
import { GuardError } from './guard-error';
import { LookupContext, OWNED_HEADERS, contentEncoding, declaredTooLarge, decoderFor, networkError, openRequest, tooLarge, where } from './guarded-request';
import { OutboundPolicy } from './outbound-policy';

export interface GuardedModelFetchOptions {
  /** Time allowed until the response headers arrive (default policy.timeoutMs). The body (a stream) may take longer. */
  headersTimeoutMs?: number;
  /** Idle gap allowed between body chunks (default 120000). */
  idleTimeoutMs?: number;
  /** DNS for host names; the system resolver (dns.lookup, all records) by default. For tests. */
  resolver?: Resolver;
}

/** A model may think for a while between two tokens; two minutes of silence is a dead stream. */
const DEFAULT_IDLE_TIMEOUT_MS = 120_000;
/** Statuses whose Response has no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

interface Limits {
  headersTimeoutMs: number;
  idleTimeoutMs: number;
}

/** What SDKs recognise as a cancelled request: the signal's own reason when it is an error, as fetch does. */
function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
}

function requestHeaders(target: CheckedTarget, headers: Headers, body: Buffer | undefined, policy: OutboundPolicy): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (!OWNED_HEADERS.has(name)) out[name] = value;
  });
  out['host'] = target.url.host;
  out['user-agent'] ??= policy.userAgent;
  out['accept-encoding'] = 'gzip, deflate, br';
  out['connection'] = 'close';
  if (body !== undefined) out['content-length'] = String(body.length);
  return out;
}

/**
 * One request on a connection of its own. Settles with the Response as soon as the headers
 * arrive; the body then streams through it, read from the socket only as fast as it is consumed.
 */
function send(target: CheckedTarget, method: string, headers: Record<string, string>, body: Buffer | undefined, signal: AbortSignal | undefined, ctx: LookupContext, limits: Limits): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const href = target.url.href;
    const { request, failure } = openRequest(target, method, headers, ctx, false);
    let done = false;
    let decoder: ReturnType<typeof decoderFor> = null;
    /** Set once the Response is out: failures then error its body instead of rejecting. */
    let streaming: ReadableStreamDefaultController<Uint8Array> | undefined;
    let idleTimer: NodeJS.Timeout | undefined;

    /** Ends the exchange: timers and listener gone, connection closed (with connection: close it is done with anyway). */
    const stop = (): void => {
      done = true;
      clearTimeout(headersTimer);
      clearTimeout(idleTimer);
      signal?.removeEventListener('abort', onAbort);
      decoder?.destroy();
      request.destroy();
    };
    const fail = (err: Error): void => {
      if (done) return;
      stop();
      if (streaming) streaming.error(err);
      else reject(err);
    };
    const onAbort = (): void => fail(abortError(signal as AbortSignal));
    const headersTimer = setTimeout(
      () => fail(new GuardError('timeout', `${where(target)} timed out: no response headers within ${limits.headersTimeoutMs} ms`, href)),
      limits.headersTimeoutMs,
    );
    const armIdle = (): void => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => fail(new GuardError('timeout', `${where(target)} timed out: nothing received for ${limits.idleTimeoutMs} ms`, href)), limits.idleTimeoutMs);
    };
    signal?.addEventListener('abort', onAbort, { once: true });

    request.on('error', (err) => fail(failure(err)));
    request.on('response', (res) => {
      if (done) {
        res.destroy();
        return;
      }
      clearTimeout(headersTimer);
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 599) {
        fail(new GuardError('network', `${where(target)} sent an invalid HTTP status (${status})`, href));
        return;
      }
      const declaredError = declaredTooLarge(res, method, ctx.policy, target);
      if (declaredError) {
        fail(declaredError);
        return;
      }
      const nullBody = NULL_BODY_STATUSES.has(status) || method === 'HEAD';
      const encoding = contentEncoding(res);
      decoder = nullBody ? null : decoderFor(encoding);
      const source: Readable = decoder ? res.pipe(decoder) : res;
      /** Whether the reader is waiting for a chunk: only then does silence count as idle. */
      let wanted = false;
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      const stream = nullBody
        ? null
        : new ReadableStream<Uint8Array>({
            start: (c) => {
              controller = c;
            },
            pull: () => {
              if (done) return;
              wanted = true;
              armIdle();
              source.resume();
            },
            cancel: () => stop(),
          });

      let response: Response;
      try {
        const responseHeaders = new Headers();
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i].toLowerCase();
          if (decoder && (name === 'content-encoding' || name === 'content-length')) continue;
          responseHeaders.append(name, res.rawHeaders[i + 1]);
        }
        response = new Response(stream, { status, statusText: res.statusMessage, headers: responseHeaders });
      } catch {
        // A header or status text that Node's parser took but the Response constructor refuses.
        fail(new GuardError('network', `${where(target)} sent an invalid HTTP response`, href));
        return;
      }
      // As fetch reports it; SDKs put it in their errors.
      Object.defineProperty(response, 'url', { value: href });
      if (nullBody) {
        stop();
        resolve(response);
        return;
      }

      streaming = controller;
      let total = 0;
      res.on('data', () => {
        if (wanted && !done) armIdle(); // raw bytes count: a compressed chunk may decode to nothing yet
      });
      source.on('data', (chunk: Buffer) => {
        if (done) return;
        total += chunk.length;
        if (total > ctx.policy.maxBytes) {
          fail(tooLarge(ctx.policy.maxBytes, target));
          return;
        }
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 0) <= 0) {
          wanted = false;
          clearTimeout(idleTimer);
          source.pause();
        }
      });
      source.on('end', () => {
        if (done) return;
        stop();
        controller.close();
      });
      res.on('error', (err) => fail(networkError(err, target)));
      res.on('close', () => {
        if (!res.complete) fail(new GuardError('network', `the connection to ${where(target)} closed before the whole response arrived`, href));
      });
      decoder?.on('error', (err) => fail(new GuardError('network', `could not decode the ${encoding} response from ${where(target)}: ${err.message}`, href)));
      resolve(response);
    });
    request.end(body);
  });
}

/**
 * A fetch for model provider SDKs (OpenAI, Anthropic, Ollama) whose base URL a workspace chose,
 * under the outbound policy. Every request is checked as guardedFetch checks it (scheme,
 * credentials, port, and every address the socket connects to), and:
 *
 * - redirects are never followed (a model API has no reason to redirect, and following would
 *   carry the key): a 3xx is returned as is;
 * - it settles when the headers arrive (headersTimeoutMs); the body streams as it comes (SSE),
 *   decompressed, capped at policy.maxBytes, and errors when the server goes quiet for
 *   idleTimeoutMs;
 * - aborting the signal closes the connection at once and rejects (or errors the body) with the
 *   signal's reason, an AbortError by default, which is what SDKs look for.
 *
 * Blocked targets, timeouts, size and network failures are GuardErrors.
 */
export function guardedModelFetch(policy: OutboundPolicy, opts: GuardedModelFetchOptions = {}): typeof fetch {
  const limits: Limits = { headersTimeoutMs: opts.headersTimeoutMs ?? policy.timeoutMs, idleTimeoutMs: opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS };
  const ctx: LookupContext = { policy, resolver: opts.resolver ?? systemResolver, blockedPrefix: '' };
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    // As fetch: a Request input's fields, each overridden by init's.
    const base = input instanceof Request ? input : undefined;
    const url = base ? base.url : String(input);
    const check = staticCheck(url, policy);
    if (!check.ok) throw new GuardError(check.code, check.reason, url);
    const headers = new Headers(init?.headers ?? base?.headers);
    const bodyInit = init?.body !== undefined ? init.body : base?.body;
    let body: Buffer | undefined;
    if (bodyInit != null) {
      // Response serialises whatever fetch takes as a body (string, bytes, URLSearchParams,
      // FormData, Blob, a stream) and says which content type goes with it.
      const wrapped = new Response(bodyInit);
      body = Buffer.from(await wrapped.arrayBuffer());
      const type = wrapped.headers.get('content-type');
      if (type !== null && !headers.has('content-type')) headers.set('content-type', type);
    }
    const method = (init?.method ?? base?.method ?? 'GET').toUpperCase();
    const signal = init?.signal ?? base?.signal ?? undefined;
    return send(check.target, method, requestHeaders(check.target, headers, body, policy), body, signal, ctx, limits);
  };
}
