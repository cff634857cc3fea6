import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { CreateActionBody, TestActionBody, UpdateActionBody, UpdateBotActionSettingsBody } from './actions';
import { toValidationIssues } from './validation';

const OPTIONS = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false } as const;
const paths = <T extends object>(cls: new () => T, plain: object) => toValidationIssues(validateSync(plainToInstance(cls, plain), OPTIONS), ['body']).map((i) => i.path.join('.'));
const action = (over: Record<string, unknown> = {}) => ({ name: 'order_status', description: 'Where an order is.', method: 'GET', url: 'https://shop.example/orders/{order_id}', ...over });

describe('CreateActionBody', () => {
  it('accepts a complete action and a minimal one', () => {
    expect(paths(CreateActionBody, action())).toEqual([]);
    expect(
      paths(
        CreateActionBody,
        action({ method: 'POST', parameters: { type: 'object', properties: {} }, headers: [{ name: 'X-Api-Key', value: 'k 1\tx' }], confirm: false, verified_only: true, user_id_param: 'customer', enabled: false }),
      ),
    ).toEqual([]);
  });

  it.each([
    [{ name: '1st' }, 'body.name'],
    [{ name: 'has space' }, 'body.name'],
    [{ name: `a${'b'.repeat(64)}` }, 'body.name'],
    [{ description: '   ' }, 'body.description'],
    [{ description: 'x'.repeat(1001) }, 'body.description'],
    [{ method: 'HEAD' }, 'body.method'],
    [{ url: 'http://shop.example/orders' }, 'body.url'],
    [{ url: 'https://{tenant}.shop.example/orders' }, 'body.url'],
    [{ url: `https://shop.example/${'a'.repeat(2000)}` }, 'body.url'],
    [{ parameters: [] }, 'body.parameters'],
    [{ headers: [{ name: 'Bad Name', value: 'x' }] }, 'body.headers.0.name'],
    [{ headers: [{ name: 'X-Key' }] }, 'body.headers.0.value'],
    [{ headers: [{ name: 'X-Key', value: 'a\r\nX-Injected: 1' }] }, 'body.headers.0.value'],
    [{ headers: [{ name: 'X-Key', value: 'k', extra: 1 }] }, 'body.headers.0.extra'],
    [{ headers: Array.from({ length: 21 }, (_, i) => ({ name: `X-${i}`, value: 'v' })) }, 'body.headers'],
    [{ secret: 'x' }, 'body.secret'],
    [{ status_text: '' }, 'body.status_text'],
    [{ status_text: '   ' }, 'body.status_text'],
    [{ status_text: 'x'.repeat(81) }, 'body.status_text'],
    [{ status_text: 'Checking\nyour order' }, 'body.status_text'],
    [{ status_text: 42 }, 'body.status_text'],
  ])('refuses %j at %s', (over, path) => expect(paths(CreateActionBody, action(over))).toContain(path));
});

describe('UpdateActionBody, TestActionBody, UpdateBotActionSettingsBody', () => {
  it('takes a header without a value in a change, and nothing at all', () => {
    expect(paths(UpdateActionBody, { headers: [{ name: 'Authorization' }] })).toEqual([]);
    expect(paths(UpdateActionBody, {})).toEqual([]);
    expect(paths(UpdateActionBody, { user_id_param: null })).toEqual([]);
    // The status text: 1 to 80 characters of one line, or null (a generic text).
    expect(paths(UpdateActionBody, { status_text: 'Checking your order…' })).toEqual([]);
    expect(paths(UpdateActionBody, { status_text: 'é'.repeat(80) })).toEqual([]);
    expect(paths(UpdateActionBody, { status_text: null })).toEqual([]);
    expect(paths(UpdateActionBody, { status_text: 'x'.repeat(81) })).toEqual(['body.status_text']);
  });

  it('takes an object as test input', () => {
    expect(paths(TestActionBody, { input: { order_id: 'A-1' } })).toEqual([]);
    expect(paths(TestActionBody, { input: 'A-1' })).toEqual(['body.input']);
  });

  it('takes 1 to 10 calls per turn and booleans for the built-ins', () => {
    expect(paths(UpdateBotActionSettingsBody, { max_calls_per_turn: 10, builtins: { booking: true } })).toEqual([]);
    expect(paths(UpdateBotActionSettingsBody, { max_calls_per_turn: 0 })).toEqual(['body.max_calls_per_turn']);
    expect(paths(UpdateBotActionSettingsBody, { max_calls_per_turn: 11 })).toEqual(['body.max_calls_per_turn']);
    expect(paths(UpdateBotActionSettingsBody, { max_calls_per_turn: 2.5 })).toEqual(['body.max_calls_per_turn']);
    expect(paths(UpdateBotActionSettingsBody, { builtins: { lead: 'yes', other: true } })).toEqual(expect.arrayContaining(['body.builtins.lead', 'body.builtins.other']));
  });
});
