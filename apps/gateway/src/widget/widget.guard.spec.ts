import 'reflect-metadata';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { CallerContext, Scope } from '@sa/contracts';
import { DomainError, NotFound } from '@sa/errors';
import type { AuthenticatedRequest } from '../auth/caller.decorator';
import { WidgetAccess } from './widget-access';
import { WidgetController } from './widget.controller';
import { WidgetGuard } from './widget.guard';

const BOT = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';

const widgetCaller = (botIds: string[], scopes: Scope[]): CallerContext => ({
  tenantId: '33333333-3333-4333-8333-333333333333',
  tokenId: null,
  scopes,
  botIds,
  requestId: 'req-1',
  entitlements: {} as CallerContext['entitlements'],
});

/** A WidgetAccess that records what it was asked and answers with a caller of `botIds` (or throws `fails`). */
function fakeAccess(botIds: (botId: string) => string[], fails?: DomainError) {
  const calls: { botId: string; sessionId: string | undefined; scopes: Scope[] }[] = [];
  const access = {
    async context(botId: string, _req: unknown, _reply: unknown, sessionId: string | undefined, scopes: Scope[]): Promise<CallerContext> {
      calls.push({ botId, sessionId, scopes });
      if (fails) throw fails;
      return widgetCaller(botIds(botId), scopes);
    },
  } as unknown as WidgetAccess;
  return { access, calls };
}

type Req = { body?: unknown; query: unknown; params: Record<string, string> } & AuthenticatedRequest;

async function run(access: WidgetAccess, handler: keyof WidgetController, req: Req): Promise<string> {
  const fn = WidgetController.prototype[handler] as (...args: unknown[]) => unknown;
  try {
    expect(await new WidgetGuard(new Reflector(), access).canActivate(new ExecutionContextHost([req, {}], WidgetController, fn))).toBe(true);
    return 'ok';
  } catch (err) {
    if (err instanceof DomainError) return `${err.code}: ${err.message}`;
    throw err;
  }
}

const request = (body: unknown, botId = BOT): Req => ({ body, query: {}, params: { botId } });

describe('WidgetGuard', () => {
  it('validates the body before it looks at the bot or the session (400 before 404 and 403)', async () => {
    const { access, calls } = fakeAccess(() => [BOT], new NotFound('Bot'));
    expect(await run(access, 'booking', request({ name: 'Lin', email: 'not-an-email', phone: '1234' }))).toMatch(/^validation_failed: /);
    expect(calls).toEqual([]);
    expect(await run(access, 'handoff', request({ sessionId: 'x' }))).toBe('not_found: Bot not found');
    expect(calls).toEqual([{ botId: BOT, sessionId: 'x', scopes: ['chat:invoke'] }]);
  });

  it('makes the caller from the bot in the path, the session in the body and the route’s scopes', async () => {
    const { access, calls } = fakeAccess((botId) => [botId]);
    const req = request({ name: 'Lin', email: 'lin@example.com', phone: '+49 30 1234567', sessionId: 's-1' });
    expect(await run(access, 'booking', req)).toBe('ok');
    expect(calls).toEqual([{ botId: BOT, sessionId: 's-1', scopes: ['bookings:write'] }]);
    expect(req.caller).toEqual(widgetCaller([BOT], ['bookings:write']));
  });

  it('mints sessions without a body, and refuses a body that is there but wrong', async () => {
    const { access, calls } = fakeAccess((botId) => [botId]);
    expect(await run(access, 'session', request(undefined))).toBe('ok');
    expect(calls).toEqual([{ botId: BOT, sessionId: undefined, scopes: ['chat:invoke'] }]);
    expect(await run(access, 'session', request({ sessionId: 'mine' }))).toMatch(/^validation_failed: /);
  });

  it('holds the caller to the bot in the path (BotAccess.Widget)', async () => {
    const { access } = fakeAccess(() => [OTHER]);
    expect(await run(access, 'handoff', request({ sessionId: 'x' }))).toBe('bot_access_denied: This token may not access that bot');
  });
});
