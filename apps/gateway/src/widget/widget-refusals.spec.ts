import 'reflect-metadata';
import Fastify from 'fastify';
import { ApiLocked, BadRequest, DomainError, NotFound, OriginNotAllowed, QuotaExhausted, RateLimited, SessionForbidden, ValidationFailed, WidgetBudgetExhausted } from '@sa/errors';
import { sendError } from '@sa/edge';
import { metricsRegistry } from '@sa/metrics';
import { countWidgetRefusals, refusalReason } from './widget-refusals';

describe('refusalReason', () => {
  it.each([
    [new RateLimited(3), 'rate_limited'],
    [new WidgetBudgetExhausted(3), 'budget_exhausted'],
    [new SessionForbidden(), 'session_forbidden'],
    [new OriginNotAllowed(), 'origin_not_allowed'],
    [new ApiLocked(), 'workspace_locked'],
    [new NotFound('Bot'), 'not_found'],
    [new ValidationFailed([]), 'invalid'],
    [new DomainError('bad_request', 'x'), 'invalid'],
  ])('%s → %s', (err, reason) => {
    expect(refusalReason(err.code)).toBe(reason);
  });

  it('is null for failures of ours and for answers that were no error of ours', () => {
    expect(refusalReason(new DomainError('service_unavailable', 'down').code)).toBeNull();
    expect(refusalReason(new DomainError('internal_error', 'boom').code)).toBeNull();
    expect(refusalReason(new QuotaExhausted('used up').code)).toBeNull();
    expect(refusalReason(undefined)).toBeNull();
  });
});

describe('countWidgetRefusals', () => {
  const total = async (reason?: string) =>
    (await metricsRegistry.getSingleMetric('sa_widget_refusals_total')!.get()).values.filter((v) => !reason || v.labels['reason'] === reason).reduce((n, v) => n + v.value, 0);

  it('counts every error a widget route was answered with, whoever sent it (a hook before the route, or the route), and nothing else', async () => {
    const fastify = Fastify();
    countWidgetRefusals(fastify, '/widget/v1/bots/');
    // As the edge's gate refuses: in an onRequest hook, before any route or body parser.
    fastify.addHook('onRequest', async (req, reply) => {
      if (req.headers['x-over-limit']) {
        sendError(reply, new RateLimited(5));
        return reply;
      }
    });
    fastify.post('/widget/v1/bots/:id/leads', async (_req, reply) => sendError(reply, new SessionForbidden()));
    fastify.post('/widget/v1/bots/:id/tickets', async (_req, reply) => sendError(reply, new BadRequest('Content-Type must be application/json')));
    fastify.post('/widget/v1/bots/:id/chat', async (_req, reply) => sendError(reply, new DomainError('internal_error', 'boom')));
    fastify.post('/v1/chat', async (_req, reply) => sendError(reply, new SessionForbidden()));
    fastify.post('/widget/v1/bots/:id/handoff', async () => ({ data: { handoff: true } }));

    const before = { limited: await total('rate_limited'), forbidden: await total('session_forbidden'), invalid: await total('invalid'), all: await total() };
    const bot = '/widget/v1/bots/7d0c0f1e-1a0b-4c55-9a44-0f9e3b1c2d3e';
    expect((await fastify.inject({ method: 'POST', url: `${bot}/leads`, headers: { 'x-over-limit': '1' } })).statusCode).toBe(429);
    expect((await fastify.inject({ method: 'POST', url: `${bot}/leads` })).statusCode).toBe(403);
    expect((await fastify.inject({ method: 'POST', url: `${bot}/tickets` })).statusCode).toBe(400);
    expect((await fastify.inject({ method: 'POST', url: `${bot}/chat` })).statusCode).toBe(500);
    expect((await fastify.inject({ method: 'POST', url: '/v1/chat' })).statusCode).toBe(403);
    expect((await fastify.inject({ method: 'POST', url: `${bot}/handoff` })).statusCode).toBe(200);

    expect(await total('rate_limited')).toBe(before.limited + 1);
    expect(await total('session_forbidden')).toBe(before.forbidden + 1);
    expect(await total('invalid')).toBe(before.invalid + 1);
    expect(await total()).toBe(before.all + 3);
    await fastify.close();
  });
});
