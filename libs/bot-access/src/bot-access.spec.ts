import 'reflect-metadata';
import { DomainError } from '@sa/errors';
import { BOT_ID_NAME, BotAccess, BotAccessMode, describeBotAccess, enforceBotAccess, enforceDeclaredBotAccess, mayUseBot, visibleBots, widgetBot } from './bot-access';

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';
const every = { botIds: null };
const onlyA = { botIds: [A] };

/** The refusal's code and message, or 'ok'. */
function outcome(run: () => void): string {
  try {
    run();
    return 'ok';
  } catch (err) {
    if (err instanceof DomainError) return `${err.code}: ${err.message}`;
    throw err;
  }
}

const check = (ctx: { botIds: string[] | null }, mode: BotAccessMode, botId?: string | null, from?: 'query') => outcome(() => enforceBotAccess(ctx, mode, botId, { from }));

describe('the bot-access policy', () => {
  it('MustName: a restricted caller must name one of its bots; an unrestricted one may name any or none', () => {
    expect(check(every, BotAccess.MustName)).toBe('ok');
    expect(check(every, BotAccess.MustName, B)).toBe('ok');
    expect(check(onlyA, BotAccess.MustName, A)).toBe('ok');
    expect(check(onlyA, BotAccess.MustName)).toBe('bot_access_denied: A token restricted to specific bots must send an allowed chatbotId');
    expect(check(onlyA, BotAccess.MustName, null, 'query')).toBe('bot_access_denied: A token restricted to specific bots must send an allowed chatbotId (query)');
    expect(check(onlyA, BotAccess.MustName, B)).toBe('bot_access_denied: This token may not access that bot');
  });

  it('MayName: naming is optional, a named bot must be allowed', () => {
    expect(check(onlyA, BotAccess.MayName)).toBe('ok');
    expect(check(onlyA, BotAccess.MayName, A)).toBe('ok');
    expect(check(every, BotAccess.MayName, B)).toBe('ok');
    expect(check(onlyA, BotAccess.MayName, B)).toBe('bot_access_denied: This token may not access that bot');
  });

  it('OfResource: the thing of a bot the caller may not use, or of no bot, is refused to a restricted caller', () => {
    expect(check(every, BotAccess.OfResource, null)).toBe('ok');
    expect(check(onlyA, BotAccess.OfResource, A)).toBe('ok');
    expect(check(onlyA, BotAccess.OfResource, B)).toBe('bot_access_denied: This token may not access that bot');
    expect(check(onlyA, BotAccess.OfResource, null)).toBe('bot_access_denied: This token may not access that bot');
    expect(outcome(() => enforceBotAccess(onlyA, BotAccess.OfResource, B, { what: 'that session' }))).toBe('bot_access_denied: This token may not access that session');
  });

  it('NewBot: only a caller for every bot', () => {
    expect(check(every, BotAccess.NewBot)).toBe('ok');
    expect(check(onlyA, BotAccess.NewBot)).toBe('bot_access_denied: A token restricted to specific bots cannot create bots');
  });

  it('Widget: the caller acts for exactly one bot and names it', () => {
    expect(check(onlyA, BotAccess.Widget, A)).toBe('ok');
    expect(check(onlyA, BotAccess.Widget, B)).toBe('bot_access_denied: This token may not access that bot');
    expect(check(every, BotAccess.Widget, A)).toBe('bot_access_denied: Widget requests must name exactly one bot');
    expect(check({ botIds: [A, B] }, BotAccess.Widget, A)).toBe('bot_access_denied: Widget requests must name exactly one bot');
    expect(widgetBot(onlyA)).toBe(A);
  });

  it('enforces a declaration on the part of the request it points at', () => {
    const declared = { mode: BotAccess.MustName, from: 'body' } as const;
    expect(outcome(() => enforceDeclaredBotAccess(onlyA, declared, { chatbotId: A }))).toBe('ok');
    expect(outcome(() => enforceDeclaredBotAccess(onlyA, declared, { chatbotId: B }))).toBe('bot_access_denied: This token may not access that bot');
    expect(outcome(() => enforceDeclaredBotAccess(onlyA, declared, {}))).toBe('bot_access_denied: A token restricted to specific bots must send an allowed chatbotId (body)');
    expect(outcome(() => enforceDeclaredBotAccess(onlyA, declared, undefined))).toMatch(/must send an allowed chatbotId \(body\)$/);
    expect(outcome(() => enforceDeclaredBotAccess(onlyA, { mode: BotAccess.Widget, from: 'path', key: 'botId' }, { botId: B }))).toBe('bot_access_denied: This token may not access that bot');
    expect(outcome(() => enforceDeclaredBotAccess(onlyA, { mode: BotAccess.NewBot }, {}))).toMatch(/cannot create bots/);
    // The edge does not know the bot of a session or booking: the service that reads it checks.
    expect(outcome(() => enforceDeclaredBotAccess(onlyA, { mode: BotAccess.OfResource }, { chatbotId: B }))).toBe('ok');
  });

  it('lists only the caller’s bots when nothing is named', () => {
    expect(visibleBots(onlyA)).toEqual([A]);
    expect(visibleBots(every)).toBeNull();
    expect([mayUseBot(every, null), mayUseBot(onlyA, null), mayUseBot(onlyA, A), mayUseBot(onlyA, B)]).toEqual([true, false, true, false]);
  });

  it('recognises the names of bot ids and describes declarations', () => {
    expect(['chatbotId', 'chatbot_id', 'botId', 'bot_id', 'botIds', 'chatbotIds'].every((n) => BOT_ID_NAME.test(n))).toBe(true);
    expect(['sessionId', 'id', 'bot', 'robotId', 'chatbotName'].some((n) => BOT_ID_NAME.test(n))).toBe(false);
    expect(describeBotAccess({ mode: BotAccess.MustName, from: 'query' })).toBe('must-name (query chatbotId)');
    expect(describeBotAccess({ mode: BotAccess.OfResource })).toBe('of-resource');
    expect(describeBotAccess(undefined)).toBe('none');
  });
});
