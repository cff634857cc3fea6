import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import zlib from 'node:zlib';
import { CheckedTarget, Resolver, resolveAndCheck } from './check-url';
import { GuardError } from './guard-error';
import { OutboundPolicy } from './outbound-policy';

// The connection side shared by guardedFetch and guardedModelFetch: one request on a socket that
// can only reach checked addresses, and the plain-words errors both report.

/** Headers the caller may not set: the guard owns the connection and the encoding. */
export const OWNED_HEADERS = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'accept-encoding', 'upgrade', 'te', 'trailer', 'proxy-connection']);

/** What the socket's lookup checks the resolved addresses against. */
export interface LookupContext {
  policy: OutboundPolicy;
  resolver: Resolver;
  /** Prefixed to the reason when the target is blocked ("redirect to … refused: "). */
  blockedPrefix: string;
}

export function where(target: CheckedTarget): string {
  return target.url.host;
}

export function networkError(err: unknown, target: CheckedTarget): GuardError {
  const e = err as NodeJS.ErrnoException;
  const code = e?.code ?? '';
  const host = where(target);
  const url = target.url.href;
  if (code === 'ECONNREFUSED') return new GuardError('network', `connection refused by ${host}`, url);
  if (code === 'ECONNRESET' || code === 'EPIPE') return new GuardError('network', `the connection to ${host} was reset`, url);
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return new GuardError('network', `could not connect to ${host} (${code})`, url);
  if (code.startsWith('HPE_')) return new GuardError('network', `${host} sent an invalid HTTP response`, url);
  if (code.startsWith('ERR_TLS') || code.startsWith('CERT_') || /certificate|SSL|TLS/i.test(e?.message ?? '')) {
    return new GuardError('network', `TLS error talking to ${host}: ${e?.message ?? code}`, url);
  }
  return new GuardError('network', `request to ${host} failed: ${e?.message ?? String(err)}`, url);
}

/**
 * The lookup used by the socket: resolves the name, checks EVERY address, and only then hands
 * the addresses to the connection. The address connected is therefore always one that was
 * checked at connect time, whatever DNS said earlier (DNS rebinding).
 */
export function guardedLookup(ctx: LookupContext, onBlocked: (err: GuardError) => void): LookupFunction {
  return (hostname, options, callback) => {
    resolveAndCheck(hostname, ctx.policy, ctx.resolver).then(
      (result) => {
        if (!result.ok) {
          const err = new GuardError(result.code, result.code === 'blocked' ? `${ctx.blockedPrefix}${result.reason}` : result.reason);
          onBlocked(err);
          callback(err as NodeJS.ErrnoException, '', 0);
          return;
        }
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const addresses = family ? result.addresses.filter((a) => a.family === family) : result.addresses;
        if (addresses.length === 0) {
          const err = new GuardError('network', `${hostname} has no IPv${family} address`);
          onBlocked(err);
          callback(err as NodeJS.ErrnoException, '', 0);
          return;
        }
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (err: unknown) => callback(err as NodeJS.ErrnoException, '', 0),
    );
  };
}

/**
 * Starts a request to a statically checked target; its socket connects through guardedLookup
 * only. `failure` turns an 'error' event of the request into the GuardError to report (the
 * lookup's own refusal first, whatever Node wrapped it in).
 */
export function openRequest(
  target: CheckedTarget,
  method: string,
  headers: Record<string, string | string[]>,
  ctx: LookupContext,
  agent: http.Agent | false,
): { request: http.ClientRequest; failure: (err: unknown) => GuardError } {
  let lookupError: GuardError | undefined;
  const isHttps = target.url.protocol === 'https:';
  const options: https.RequestOptions = {
    protocol: target.url.protocol,
    host: target.hostname,
    port: target.port,
    path: `${target.url.pathname}${target.url.search}`,
    method,
    headers,
    setHost: false,
    agent,
    lookup: guardedLookup(ctx, (err) => (lookupError = err)),
    ...(isHttps && target.ip === null ? { servername: target.hostname } : {}),
  };
  const request = (isHttps ? https : http).request(options);
  const failure = (err: unknown): GuardError => lookupError ?? (err instanceof GuardError ? err : networkError(err, target));
  return { request, failure };
}

export function tooLarge(max: number, target: CheckedTarget, declared?: number): GuardError {
  const detail = declared === undefined ? '' : ` (Content-Length: ${declared})`;
  return new GuardError('too_large', `response larger than ${max} bytes${detail}`, target.url.href);
}

/** The error for a response whose Content-Length alone is over the cap, so its body is never read. */
export function declaredTooLarge(res: http.IncomingMessage, method: string, policy: OutboundPolicy, target: CheckedTarget): GuardError | null {
  const lengthHeader = res.headers['content-length'];
  if (lengthHeader === undefined || method === 'HEAD' || res.statusCode === 204 || res.statusCode === 304) return null;
  const declared = Number(lengthHeader);
  return Number.isFinite(declared) && declared > policy.maxBytes ? tooLarge(policy.maxBytes, target, declared) : null;
}

export function decoderFor(encoding: string): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null {
  if (encoding === 'gzip' || encoding === 'x-gzip') return zlib.createGunzip();
  if (encoding === 'deflate') return zlib.createInflate();
  if (encoding === 'br') return zlib.createBrotliDecompress();
  return null;
}

/** The response's Content-Encoding, normalised for decoderFor. */
export function contentEncoding(res: http.IncomingMessage): string {
  return String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
}
