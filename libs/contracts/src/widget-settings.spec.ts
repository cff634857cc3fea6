import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { toValidationIssues } from './validation';
import { UpdateWidgetSettingsBody, WidgetIdentifyBody, canonicalOrigin } from './widget';

const OPTIONS = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false } as const;
const issues = <T extends object>(cls: new () => T, plain: object) => toValidationIssues(validateSync(plainToInstance(cls, plain), OPTIONS), ['body']);

describe('canonicalOrigin', () => {
  it.each([
    ['https://www.Example.com', 'https://www.example.com'],
    ['http://localhost:8080', 'http://localhost:8080'],
    ['https://shop.example.com:443', 'https://shop.example.com'],
    ['HTTPS://A.EXAMPLE', 'https://a.example'],
  ])('%s is %s', (value, canonical) => expect(canonicalOrigin(value)).toBe(canonical));

  it.each(['https://example.com/', 'https://example.com/path', 'https://example.com?q=1', 'https://example.com#x', 'https://user:pw@example.com', 'ftp://example.com', 'example.com', '', 'https://', `https://${'a'.repeat(200)}.com`, 'null'])(
    'refuses %j',
    (value) => expect(canonicalOrigin(value)).toBeNull(),
  );
});

describe('UpdateWidgetSettingsBody', () => {
  it('accepts origins and a theme', () => {
    expect(issues(UpdateWidgetSettingsBody, { allowed_origins: ['https://a.example', 'HTTP://B.example:81'], theme: { color: '#A1b2C3', position: 'left', greeting: null, launcher_text: 'Chat' } })).toEqual([]);
    expect(issues(UpdateWidgetSettingsBody, {})).toEqual([]);
  });

  it('refuses bad members with their paths', () => {
    const found = issues(UpdateWidgetSettingsBody, {
      allowed_origins: ['https://a.example/path'],
      theme: { color: 'blue', position: 'top', greeting: '   ', launcher_text: 'x'.repeat(41), extra: 1 },
    });
    const paths = found.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['body.allowed_origins', 'body.theme.color', 'body.theme.position', 'body.theme.greeting', 'body.theme.launcher_text', 'body.theme.extra']));
    expect(issues(UpdateWidgetSettingsBody, { allowed_origins: Array.from({ length: 21 }, (_, i) => `https://a${i}.example`) })).toHaveLength(1);
  });
});

describe('WidgetIdentifyBody', () => {
  const body = { sessionId: 's', externalUserId: 'u-1' };
  it('requires a 64-hex userHash', () => {
    expect(issues(WidgetIdentifyBody, { ...body, userHash: 'aB'.repeat(32) })).toEqual([]);
    expect(issues(WidgetIdentifyBody, body)[0]).toMatchObject({ code: 'required', path: ['body', 'userHash'] });
    expect(issues(WidgetIdentifyBody, { ...body, userHash: 'g'.repeat(64) })[0]).toMatchObject({ code: 'invalid_format', path: ['body', 'userHash'] });
  });
});
