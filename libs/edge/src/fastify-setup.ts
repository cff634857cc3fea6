import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { counter, histogram } from '@sa/metrics';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A caller's X-Request-Id is kept when it is short and plain; otherwise a new uuid is made. */
export function requestIdOf(req: { headers: Record<string, string | string[] | undefined> }): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * Fastify-level behaviour Nest does not cover: X-Request-Id on every response (errors and 404s
 * included) and one access log line per request (path only: query strings can carry visitor
 * text). Body-parsing failures and unknown routes reach HttpErrorFilter through Nest's own
 * Fastify error and not-found handlers.
 */
const httpRequests = counter({ name: 'sa_http_requests_total', help: 'HTTP requests answered, by method, route and status', labelNames: ['method', 'route', 'status'] as const });
const httpDuration = histogram({ name: 'sa_http_request_duration_seconds', help: 'HTTP request duration (to the end of the response; whole streams for SSE)', labelNames: ['method', 'route'] as const });

export function configureFastify(fastify: FastifyInstance, logger: Logger): void {
  fastify.addHook('onRequest', async (req, reply) => {
    void reply.header('x-request-id', req.id);
  });
  fastify.addHook('onResponse', async (req: FastifyRequest, reply) => {
    const path = req.url.split('?')[0];
    logger.info({ request_id: req.id, method: req.method, path, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    // The route template (/v1/bookings/:id), never the raw path: ids would explode the label set.
    const route = req.routeOptions?.url ?? 'unmatched';
    httpRequests.inc({ method: req.method, route, status: String(reply.statusCode) });
    httpDuration.observe({ method: req.method, route }, reply.elapsedTime / 1000);
  });
}
