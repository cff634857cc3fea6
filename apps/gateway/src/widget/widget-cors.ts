import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PublicBot, canonicalOrigin } from '@sa/contracts';
import { OriginNotAllowed } from '@sa/errors';
import { CORS_EXPOSED_HEADERS, sendError } from '@sa/edge';
import { UUID, WIDGET_ROUTES } from './widget-access';

const PREFLIGHT_MAX_AGE_SECONDS = 600;
export const WIDGET_CORS_METHODS = 'GET, POST';
export const WIDGET_CORS_HEADERS = 'Content-Type';

/**
 * Whether a page at `origin` may use the bot's widget routes: every origin when the bot lists none,
 * otherwise exactly those listed (compared in their canonical form).
 */
export function originGranted(bot: Pick<PublicBot, 'allowed_origins'>, origin: string): boolean {
  if (!bot.allowed_origins.length) return true;
  const canonical = canonicalOrigin(origin);
  return canonical !== null && bot.allowed_origins.includes(canonical);
}

/** The bot id of a widget route's path (`/widget/v1/bots/<id>/…`), or null. */
function botIdOf(url: string): string | null {
  const path = url.split('?')[0];
  if (!path.startsWith(WIDGET_ROUTES)) return null;
  const id = path.slice(WIDGET_ROUTES.length).split('/')[0] ?? '';
  return UUID.test(id) ? id : null;
}

/**
 * CORS and the Origin check of the widget routes, per bot (issue 18), in onRequest: before the
 * body is read. A request without Origin (a server, curl) is not checked. A granted origin gets
 * `Access-Control-Allow-Origin: <origin>`; its preflight (answered by the edge's OPTIONS route:
 * 204 with Allow) the methods (GET, POST) and header (Content-Type) allowed. Otherwise a
 * preflight gets 204 without any grant (the browser
 * stops there) and any other request 403 `origin_not_allowed`, also without any grant. An unknown bot is left to the route (404); a bots service that does not answer too.
 */
export function installWidgetCors(fastify: FastifyInstance, bot: (botId: string) => Promise<PublicBot>): void {
  // Callback style: the REST API's requests (no bot id in the path) pass without a promise.
  fastify.addHook('onRequest', (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    const botId = botIdOf(req.url);
    if (!botId) return done();
    check(req, reply, botId).then((answered) => {
      if (!answered) done();
    }, done);
  });

  /** True when it answered the request (403) itself. */
  async function check(req: FastifyRequest, reply: FastifyReply, botId: string): Promise<boolean> {
    void reply.header('vary', 'Origin');
    const origin = req.headers.origin;
    if (typeof origin !== 'string') return false;
    let found: PublicBot;
    try {
      found = await bot(botId);
    } catch {
      return false;
    }
    const granted = originGranted(found, origin);
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    if (preflight) {
      // The edge's OPTIONS route answers (204 with Allow, or 404 for a path that is no route).
      if (granted) {
        void reply
          .header('access-control-allow-origin', origin)
          .header('access-control-allow-methods', WIDGET_CORS_METHODS)
          .header('access-control-allow-headers', WIDGET_CORS_HEADERS)
          .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS));
      }
      return false;
    }
    if (!granted) {
      // No grant: a page at a refused origin cannot read even the refusal (the browser reports a
      // network error to its script); servers and curl read the 403 as usual.
      sendError(reply, new OriginNotAllowed());
      return true;
    }
    void reply.header('access-control-allow-origin', origin).header('access-control-expose-headers', CORS_EXPOSED_HEADERS.join(', '));
    return false;
  }
}
