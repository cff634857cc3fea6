import 'reflect-metadata';
import { validateActionInput, validateParametersSchema } from '@sa/actions';
import type { CallerContext } from '@sa/contracts';
import type { RpcClient } from '@sa/messaging';
import { BOOKING_PARAMETERS, BuiltinContext, CONTACT_PARAMETERS, HANDOFF_PARAMETERS, builtinCaller, builtinTools } from './builtin-tools';

// The built-in tools' shape: which are offered, their confirmation defaults, schemas a model and
// our own checker accept, and the caller they send with. Their calls are tested against the real
// services in builtin-tools.int-spec.ts.

const BOT = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';
const caller = (botIds: string[] | null) => ({ tenantId: '33333333-3333-4333-8333-333333333333', tokenId: null, scopes: ['chat:invoke'], botIds, requestId: 'r', entitlements: {} }) as unknown as CallerContext;
const ctx = (over: Partial<BuiltinContext> = {}): BuiltinContext => ({
  rpc: {} as RpcClient,
  caller: caller([BOT]),
  chatbotId: BOT,
  sessionId: 's-1',
  channel: 'widget',
  language: 'en',
  onHandoff: () => undefined,
  now: () => new Date('2026-05-04T22:30:00Z'),
  ...over,
});
const ALL = { booking: true, lead: true, handoff: true };

describe('builtinTools', () => {
  it('offers only the built-ins switched on, in a fixed order', () => {
    expect(builtinTools({ booking: false, lead: false, handoff: false }, ctx())).toEqual([]);
    expect(builtinTools({ booking: false, lead: true, handoff: false }, ctx()).map((t) => t.name)).toEqual(['capture_contact']);
    expect(builtinTools(ALL, ctx()).map((t) => t.name)).toEqual(['request_booking', 'capture_contact', 'handoff_to_person']);
  });

  it('asks the visitor before writing on their behalf (booking, contact), not before a handoff', () => {
    const byName = Object.fromEntries(builtinTools(ALL, ctx()).map((t) => [t.name, t]));
    expect([byName['request_booking'], byName['capture_contact'], byName['handoff_to_person']].map((t) => [t!.source, t!.confirm, t!.verifiedOnly])).toEqual([
      ['builtin', true, false],
      ['builtin', true, false],
      ['builtin', false, false],
    ]);
  });

  it('has schemas our checker accepts, asking what the forms ask', () => {
    for (const schema of [BOOKING_PARAMETERS, CONTACT_PARAMETERS, HANDOFF_PARAMETERS]) expect(validateParametersSchema(schema)).toEqual([]);
    expect(Object.keys(BOOKING_PARAMETERS['properties'] as object)).toEqual(['name', 'email', 'phone', 'requestedSlot', 'timeZone', 'notes']);
    expect(BOOKING_PARAMETERS['required']).toEqual(['name', 'email', 'phone']);
    expect(Object.keys(CONTACT_PARAMETERS['properties'] as object)).toEqual(['name', 'email', 'phone', 'company', 'message']);
    expect(validateActionInput(BOOKING_PARAMETERS, { name: 'Ann', email: 'a@b.c' })).toEqual({ ok: false, errors: ['phone: is required'] });
    expect(validateActionInput(CONTACT_PARAMETERS, { email: 42 })).toEqual({ ok: false, errors: ['email: must be string'] });
  });

  it("tells the model today's date (UTC) for the booking, and gives English status lines only in English", () => {
    expect(builtinTools(ALL, ctx())[0]!.description).toContain('Today is 2026-05-04 (UTC)');
    expect(builtinTools(ALL, ctx()).map((t) => t.label)).toEqual(['Requesting your booking…', 'Saving your contact details…', 'Asking a person to join…']);
    expect(builtinTools(ALL, ctx({ language: 'en-IN' }))[0]!.label).toBe('Requesting your booking…');
    expect(builtinTools(ALL, ctx({ language: 'ja-JP' })).map((t) => t.label)).toEqual([null, null, null]);
  });

  it('runs the handoff by telling the turn', async () => {
    let told = 0;
    const [handoff] = builtinTools({ booking: false, lead: false, handoff: true }, ctx({ onHandoff: () => told++ }));
    expect(await handoff!.run({}, new AbortController().signal)).toMatchObject({ ok: true, error: null });
    expect(told).toBe(1);
  });
});

describe('builtinCaller', () => {
  it("limits the turn's caller to the bot, and never widens a caller restricted to other bots", () => {
    expect(builtinCaller(caller(null), BOT).botIds).toEqual([BOT]);
    expect(builtinCaller(caller([OTHER, BOT]), BOT).botIds).toEqual([BOT]);
    expect(builtinCaller(caller([OTHER]), BOT).botIds).toEqual([OTHER]);
  });
});
