import 'reflect-metadata';
import { Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { CallerContext, ChatRequest, Scope } from '@sa/contracts';
import { EdgeGate } from '@sa/edge';
import { DomainError } from '@sa/errors';
import { BookingsController } from '../bookings/bookings.controller';
import { BotsController } from '../bots/bots.controller';
import { ChatController } from '../chat/chat.controller';
import { routeDtos } from '../http/route-input';
import { KbController } from '../knowledge/kb.controller';
import { AuthGuard } from './auth.guard';
import type { AuthenticatedRequest } from './caller.decorator';

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';
const ALL: Scope[] = ['bots:read', 'bots:write', 'kb:read', 'kb:write', 'chat:invoke', 'bookings:read'];

const callerOf = (botIds: string[] | null, scopes: Scope[] = ALL): CallerContext => ({
  tenantId: '33333333-3333-4333-8333-333333333333',
  tokenId: '44444444-4444-4444-8444-444444444444',
  scopes,
  botIds,
  requestId: 'req-1',
  entitlements: {} as CallerContext['entitlements'],
});

type Req = { body?: unknown; query?: unknown; params?: unknown } & AuthenticatedRequest;

/** Runs the guard on a route with a request, as the token `caller` (the EdgeGate's verdict); the error code and message, or 'ok'. */
async function guard(caller: CallerContext, controller: Type<unknown>, handler: string, req: Req): Promise<string> {
  const gate = { caller: async () => caller } as unknown as EdgeGate;
  const fn = (controller.prototype as Record<string, (...args: unknown[]) => unknown>)[handler];
  try {
    expect(await new AuthGuard(new Reflector(), gate).canActivate(new ExecutionContextHost([Object.assign(req, { query: req.query ?? {}, params: req.params ?? {} }), {}], controller, fn))).toBe(true);
    return 'ok';
  } catch (err) {
    if (err instanceof DomainError) return `${err.code}: ${err.message}`;
    throw err;
  }
}

describe('AuthGuard: the declared bot access, after validation', () => {
  it('checks the bot of a MustName route after validating its body (400 before 403)', async () => {
    const onlyA = callerOf([A]);
    expect(await guard(onlyA, ChatController, 'chat', { body: { message: '' } })).toMatch(/^validation_failed: /);
    expect(await guard(onlyA, ChatController, 'chat', { body: { message: 'hi', chatbotId: 'not-a-uuid' } })).toMatch(/^validation_failed: /);
    expect(await guard(onlyA, ChatController, 'chat', { body: { message: 'hi' } })).toBe('bot_access_denied: A token restricted to specific bots must send an allowed chatbotId (body)');
    expect(await guard(onlyA, ChatController, 'chat', { body: { message: 'hi', chatbotId: B } })).toBe('bot_access_denied: This token may not access that bot');
    expect(await guard(onlyA, ChatController, 'chat', { body: { message: 'hi', chatbotId: A } })).toBe('ok');
    expect(await guard(callerOf(null), ChatController, 'chat', { body: { message: 'hi' } })).toBe('ok');
  });

  it('reads the part of the request the route declares', async () => {
    expect(await guard(callerOf([A]), KbController, 'list', { query: {} })).toBe('bot_access_denied: A token restricted to specific bots must send an allowed chatbotId (query)');
    expect(await guard(callerOf([A]), KbController, 'list', { query: { chatbotId: A } })).toBe('ok');
  });

  it('keeps scope (403) before validation (400)', async () => {
    expect(await guard(callerOf([A], ['kb:read']), ChatController, 'chat', { body: { message: '' } })).toMatch(/^insufficient_scope: /);
  });

  it('refuses bot creation to a restricted token once the body is valid', async () => {
    expect(await guard(callerOf([A]), BotsController, 'create', { body: { name: 'Helper' } })).toBe('bot_access_denied: A token restricted to specific bots cannot create bots');
    expect(await guard(callerOf([A]), BotsController, 'create', { body: {} })).toMatch(/^validation_failed: /);
    expect(await guard(callerOf(null), BotsController, 'create', { body: { name: 'Helper' } })).toBe('ok');
  });

  it('leaves a booking’s bot to the bookings service (OfResource)', async () => {
    expect(await guard(callerOf([A]), BookingsController, 'get', { params: { id: B } })).toBe('ok');
  });

  it('sets the caller, and Nest gets the instance the guard validated', async () => {
    const req: Req = { body: { message: 'hi', chatbotId: A } };
    expect(await guard(callerOf([A]), ChatController, 'chat', req)).toBe('ok');
    expect(req.caller).toEqual(callerOf([A]));
    // The guard ran the route's pipe on this very body; Nest's run of it returns that result
    // (validated once: a change made after the guard is not looked at again).
    (req.body as { message: string }).message = '';
    const [{ pipe }] = routeDtos(ChatController, 'chat');
    const validated = pipe.transform(req.body);
    expect(validated).toBeInstanceOf(ChatRequest);
    expect(validated).toEqual(expect.objectContaining({ message: 'hi', chatbotId: A }));
    expect(() => pipe.transform({ message: '' })).toThrow(DomainError);
  });
});
