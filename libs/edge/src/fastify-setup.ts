import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { counter, histogram } from '@sa/metrics';
import { loggedPath } from './logged-path';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A caller's X-Request-Id is kept when it is short and plain; otherwise a new uuid is made. */
export function requestIdOf(req: { headers: Record<string, string | string[] | undefined> }): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * Fastify-level behaviour Nest does not cover: X-Request-Id on every response (errors and 404s
 * included) and one access log line per request (path only, without bearer secrets: see
 * loggedPath). Body-parsing failures and unknown routes reach HttpErrorFilter through Nest's own
 * Fastify error and not-found handlers.
 */
const httpRequests = counter({ name: 'sa_http_requests_total', help: 'HTTP requests answered, by method, route and status', labelNames: ['method', 'route', 'status'] as const });
const httpDuration = histogram({ name: 'sa_http_request_duration_seconds', help: 'HTTP request duration (to the end of the response; whole streams for SSE)', labelNames: ['method', 'route'] as const });

export function configureFastify(fastify: FastifyInstance, logger: Logger): void {
  // Callback-style hooks (here and in the other edge hooks that never wait): no promise per request.
  fastify.addHook('onRequest', (req, reply, done) => {
    void reply.header('x-request-id', req.id);
    done();
  });
  const accessLog = logger.isLevelEnabled('info');
  fastify.addHook('onResponse', (req: FastifyRequest, reply, done) => {
    // The line's object is only built when it is written (LOG_LEVEL=warn and above write none).
    if (accessLog) logger.info({ request_id: req.id, method: req.method, path: loggedPath(req.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    // The route template (/v1/bookings/:id), never the raw path: ids would explode the label set.
    const route = req.routeOptions?.url ?? 'unmatched';
    httpRequests.inc({ method: req.method, route, status: String(reply.statusCode) });
    httpDuration.observe({ method: req.method, route }, reply.elapsedTime / 1000);
    done();
  });
}

/**
 * Requests Node's HTTP server refuses before any route sees them (headers or URL over 16 KB,
 * malformed request lines, headers or a body not received within HTTP_HEADERS_TIMEOUT_MS /
 * HTTP_REQUEST_TIMEOUT_MS) get a 400 in the spec's general error body instead of Node's or
 * Fastify's 408/431/400 bodies, and the connection is closed. Pass as the `clientErrorHandler`
 * option of the Fastify adapter.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: import('node:net').Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const message =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? 'The request line and headers are too large (at most 16 KB)'
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'The request was not received in time'
        : 'The request is not valid HTTP';
  const body = JSON.stringify({ error: 'Bad Request', code: 'bad_request', message });
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
  // The client may never read or close: do not keep the socket for it.
  setTimeout(() => socket.destroy(), 1000).unref();
}

/**
 * Router-level failures Fastify answers before any route (a URL that is not valid percent-encoding,
 * a path segment over maxParamLength) in the spec's general error body, as 400 bad_request
 * instead of Fastify's 400/414 bodies. Pass as the `frameworkErrors` option of the Fastify adapter.
 */
export function frameworkErrors(error: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  const message = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path segment is too long' : 'The URL is not valid';
  void reply
    .code(400)
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .send({ error: 'Bad Request', code: 'bad_request', message });
}
