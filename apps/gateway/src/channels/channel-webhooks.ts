import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { CHANNEL_WEBHOOK_BODY_MAX, CHANNEL_WEBHOOK_PATH, WEBHOOK_CHANNEL_KINDS, WebhookChannelKind } from '@sa/contracts';
import { sendError, toDomainFromFramework } from '@sa/edge';
import { DomainError, NotFound, ServiceUnavailable } from '@sa/errors';
import { RpcClient } from '@sa/messaging';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The headers a provider's signature or secret needs, and nothing else crosses NATS (no cookies, no proxies' headers). */
const FORWARDED_HEADERS = ['content-type', 'x-hub-signature-256', 'x-telegram-bot-api-secret-token', 'x-slack-signature', 'x-slack-request-timestamp', 'x-slack-retry-num', 'x-slack-retry-reason'];


/**
 * The providers' webhooks (issue 35): `GET|POST /channels/v1/{kind}/{connectionId}`, public (the
 * provider holds no token of ours), in an encapsulated Fastify scope whose only body parser keeps
 * the bytes as they came (a signature is over the raw body, and Slack and Telegram post JSON,
 * Meta too; anything else is the adapter's to refuse). The request is
 * forwarded to the channels service, which checks the signature with the connection's secret,
 * stores the messages and answers at once (they are answered afterwards): a provider's deadline
 * never waits on a model. Unknown connection: 404; channels service away: 503 (providers retry).
 * The EdgeGate counts every request per connection before its body is read (CHANNEL_WEBHOOK_RATE_LIMIT_*).
 */
export function installChannelWebhooks(fastify: FastifyInstance, deps: { rpc: RpcClient; timeoutMs: number; logger: Logger }): void {
  void fastify.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: CHANNEL_WEBHOOK_BODY_MAX }, (_req, body, done) => done(null, body));
    // A body over the limit, a bad Content-Length: the spec's error shapes, as on every other route.
    scope.setErrorHandler((err, req, reply) => sendError(reply, toDomainFromFramework(err, String(req.id))));
    const handler = async (req: FastifyRequest<{ Params: { kind: string; connectionId: string } }>, reply: FastifyReply) => {
      const { kind, connectionId } = req.params;
      if (!(WEBHOOK_CHANNEL_KINDS as readonly string[]).includes(kind) || !UUID.test(connectionId)) return sendError(reply, new NotFound('Channel connection'));
      const headers: Record<string, string> = {};
      for (const name of FORWARDED_HEADERS) {
        const v = req.headers[name];
        if (typeof v === 'string') headers[name] = v.slice(0, 1000);
      }
      const query: Record<string, string> = {};
      for (const [k, v] of Object.entries((req.query ?? {}) as Record<string, unknown>)) {
        const last = Array.isArray(v) ? v[v.length - 1] : v;
        if (typeof last === 'string' && k.length <= 100) query[k] = last.slice(0, 1000);
      }
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      try {
        const answer = await deps.rpc.send(
          'channels.webhook.receive',
          { kind: kind as WebhookChannelKind, connectionId: connectionId.toLowerCase(), method: req.method === 'GET' ? 'GET' : 'POST', query, headers, body_base64: body.toString('base64') },
          undefined,
          { timeoutMs: deps.timeoutMs },
        );
        // A handshake echoes a value the caller chose: never let a browser read it as anything but text.
        return reply.code(answer.status).header('content-type', answer.content_type).header('x-content-type-options', 'nosniff').header('cache-control', 'no-store').send(answer.body);
      } catch (err) {
        deps.logger.warn({ err: (err as Error).message, kind, connection_id: connectionId }, 'a channel webhook could not be handed to the channels service');
        if (err instanceof DomainError && err.code !== 'service_unavailable' && err.code !== 'internal_error') return sendError(reply, err);
        return sendError(reply.header('retry-after', '5'), new ServiceUnavailable('channels', 'try again'));
      }
    };
    scope.route({ method: ['GET', 'POST'], url: `${CHANNEL_WEBHOOK_PATH}/:kind/:connectionId`, handler });
  });
}
