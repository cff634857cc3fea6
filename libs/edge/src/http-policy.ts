import type { FastifyInstance } from 'fastify';
import { NotFound } from '@sa/errors';
import { sendError } from './http-errors';
import { isRefusedConnection } from './http-limits';

export interface HttpPolicy {
  /** Exact browser origins granted CORS on `corsPaths`; empty: no origin is granted. */
  corsAllowedOrigins: readonly string[];
  /** Path prefixes whose responses may be granted: /v1 at the gateway, /mcp at the MCP server. */
  corsPaths: readonly string[];
  /** Request headers a preflight may ask for besides the CORS-safelisted ones. */
  corsAllowHeaders: readonly string[];
}

/** Response headers a granted page may read. */
export const CORS_EXPOSED_HEADERS = ['X-Request-Id', 'X-Session-Id', 'X-Chatbot-Id', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'WWW-Authenticate'];
const PREFLIGHT_MAX_AGE_SECONDS = 600;
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

const pathOf = (url: string): string => url.split('?')[0];

/** The methods each route path answers, for Allow (routes as Fastify registers them: /v1/bookings/:id). */
class RouteTable {
  private readonly routes: { method: string; pattern: RegExp }[] = [];

  add(methods: string | string[], url: string): void {
    const pattern = new RegExp(
      `^${url
        .split('/')
        .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/')}/?$`,
    );
    for (const method of [methods].flat()) if (method !== 'OPTIONS') this.routes.push({ method, pattern });
  }

  methodsOf(path: string): string[] {
    const found = new Set(this.routes.filter((r) => r.pattern.test(path)).map((r) => r.method));
    if (found.has('GET')) found.add('HEAD');
    return METHOD_ORDER.filter((m) => found.has(m));
  }
}

/**
 * Response headers and OPTIONS for a public edge:
 * - `X-Content-Type-Options: nosniff` on every response, and `Cache-Control: no-store` unless a
 *   route sets its own (the chat stream, the OpenAPI documents): answers carry personal data.
 * - CORS only for `corsAllowedOrigins` on `corsPaths`: `Access-Control-Allow-Origin` for exactly
 *   that origin, `Vary: Origin`, and the headers clients need exposed. No credentials (tokens go
 *   in Authorization, never cookies).
 * - OPTIONS on a known path: 204 with `Allow`; for a granted origin's preflight also the
 *   Access-Control-Allow-Methods/Headers/Max-Age. An unknown path is 404 as for other methods.
 * - A request arriving on a connection refused by the per-address cap is dropped unanswered.
 */
export function installHttpPolicy(fastify: FastifyInstance, policy: HttpPolicy): void {
  const routes = new RouteTable();
  fastify.addHook('onRoute', (route) => routes.add(route.method, route.url ?? route.path));
  const granted = new Set(policy.corsAllowedOrigins);
  const corsApplies = (path: string) => granted.size > 0 && policy.corsPaths.some((p) => path === p || path.startsWith(`${p}/`));

  fastify.addHook('onRequest', (req, reply, done) => {
    if (isRefusedConnection(req.raw.socket)) {
      reply.hijack();
      req.raw.socket.destroy();
      done();
      return;
    }
    void reply.header('x-content-type-options', 'nosniff').header('cache-control', 'no-store');
    if (corsApplies(pathOf(req.url))) {
      void reply.header('vary', 'Origin');
      const origin = req.headers.origin;
      if (typeof origin === 'string' && granted.has(origin)) {
        void reply.header('access-control-allow-origin', origin).header('access-control-expose-headers', CORS_EXPOSED_HEADERS.join(', '));
      }
    }
    done();
  });

  fastify.route({
    method: 'OPTIONS',
    url: '*',
    handler: (req, reply) => {
      const methods = routes.methodsOf(pathOf(req.url));
      if (!methods.length) {
        sendError(reply, new NotFound('Route'));
        return;
      }
      const allow = [...methods, 'OPTIONS'].join(', ');
      void reply.header('allow', allow);
      // A route family with CORS of its own (the widget's, per bot) has set its preflight answer already.
      if (reply.hasHeader('access-control-allow-origin') && req.headers['access-control-request-method'] && !reply.hasHeader('access-control-allow-methods')) {
        void reply
          .header('access-control-allow-methods', allow)
          .header('access-control-allow-headers', policy.corsAllowHeaders.join(', '))
          .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS));
      }
      void reply.code(204).send();
    },
  });
}
