import { format, isRtl, LANGUAGES, matchLanguage, messagesFor } from './index';
import { en } from './en';
import { arAE } from './ar-AE';
import { jaJP } from './ja-JP';

describe('LANGUAGES', () => {
  it('is English plus the fifteen of the spec', () => {
    expect(LANGUAGES).toEqual([
      'en', 'en-IN', 'ja-JP', 'ko-KR', 'zh-CN', 'ms-MY', 'id-ID', 'th-TH',
      'vi-VN', 'fil-PH', 'ar-AE', 'hi-IN', 'ta-IN', 'sw-KE', 'ha-NG', 'yo-NG',
    ]);
  });
});

describe('matchLanguage', () => {
  it.each([
    // Exact, in any case and with an underscore.
    ['ja-JP', [], 'ja-JP'],
    ['JA-jp', [], 'ja-JP'],
    ['ko_KR', [], 'ko-KR'],
    [' fil-PH ', [], 'fil-PH'],
    ['en-IN', [], 'en-IN'],
    ['en', [], 'en'],
    // By primary subtag.
    ['ar', [], 'ar-AE'],
    ['ar-EG', [], 'ar-AE'],
    ['ja', [], 'ja-JP'],
    ['zh-TW', [], 'zh-CN'],
    ['zh-Hant-HK', [], 'zh-CN'],
    ['tl', [], 'fil-PH'],
    ['fil', [], 'fil-PH'],
    ['in', [], 'id-ID'],
    ['en-GB', [], 'en'],
    ['en-US', [], 'en'],
    ['ta-LK', [], 'ta-IN'],
    ['sw-TZ', [], 'sw-KE'],
    ['yo', [], 'yo-NG'],
    ['ha', [], 'ha-NG'],
    // The page's choice wins over the browser's, even by primary subtag only.
    ['ar', ['ja-JP'], 'ar-AE'],
    ['vi', ['en-IN'], 'vi-VN'],
    // Unknown or empty request: the browser's languages, in order.
    ['de-DE', ['fr-FR', 'th-TH', 'ja-JP'], 'th-TH'],
    [undefined, ['hi', 'en'], 'hi-IN'],
    ['', ['en-IN', 'hi-IN'], 'en-IN'],
    ['   ', ['ms'], 'ms-MY'],
    [undefined, ['en-GB', 'ko-KR'], 'en'],
    // Nothing we speak: English.
    [undefined, [], 'en'],
    ['de', ['fr', 'es-ES'], 'en'],
    ['x', ['-', ''], 'en'],
  ] as Array<[string | undefined, string[], string]>)('%j with browser %j → %s', (requested, browser, expected) => {
    expect(matchLanguage(requested, browser)).toBe(expected);
  });
});

describe('messagesFor', () => {
  it('gives the texts of a code, forgiving case and region, English for the unknown', () => {
    expect(messagesFor('ja-JP')).toBe(jaJP);
    expect(messagesFor('ar')).toBe(arAE);
    expect(messagesFor('AR-ae')).toBe(arAE);
    expect(messagesFor('de-DE')).toBe(en);
    expect(messagesFor('')).toBe(en);
  });
});

describe('isRtl', () => {
  it('is true for Arabic only', () => {
    expect(isRtl('ar-AE')).toBe(true);
    expect(isRtl('ar')).toBe(true);
    for (const code of LANGUAGES.filter((c) => c !== 'ar-AE')) expect(isRtl(code)).toBe(false);
    expect(isRtl('')).toBe(false);
  });
});

describe('format', () => {
  it('fills named placeholders and leaves unknown ones', () => {
    expect(format(en.time_zone_hint, { tz: 'Asia/Tokyo' })).toBe('Your time zone: Asia/Tokyo');
    expect(format(jaJP.time_zone_hint, { tz: 'Asia/Tokyo' })).toBe('タイムゾーン：Asia/Tokyo');
    expect(format('{a} and {b} and {a}', { a: 1 })).toBe('1 and {b} and 1');
    expect(format('no placeholders', { tz: 'x' })).toBe('no placeholders');
  });

  it('inserts values literally (no $-patterns, no second pass)', () => {
    expect(format('{x}', { x: '$& {y}' })).toBe('$& {y}');
    expect(format('{toString}', {})).toBe('{toString}');
  });
});
