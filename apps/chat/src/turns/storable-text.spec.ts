import { StorableStream, storable } from './storable-text';

describe('storable', () => {
  it('replaces lone surrogates with U+FFFD and drops NUL, keeping surrogate pairs and everything else', () => {
    expect(storable('hi \ud800 there')).toBe('hi \ufffd there');
    expect(storable('end \ud83d')).toBe('end \ufffd');
    expect(storable('\ude00 start')).toBe('\ufffd start');
    expect(storable('a\u0000b\u0000')).toBe('ab');
    expect(storable('emoji 😀, 日本語, عربى, ไทย\n\ttab')).toBe('emoji 😀, 日本語, عربى, ไทย\n\ttab');
    expect(storable('\udc00\ud800')).toBe('\ufffd\ufffd');
  });

  it('gives text that JSON and PostgreSQL accept (no lone surrogate escapes, no NUL)', () => {
    const s = storable('x\ud800y\u0000z\udfff');
    expect(Buffer.from(s, 'utf8').toString('utf8')).toBe(s); // no code unit is lost to UTF-8
    expect(JSON.stringify(s)).not.toMatch(/\\u(d[89a-f][0-9a-f]{2}|0000)/i);
  });
});

describe('StorableStream', () => {
  function run(pieces: string[]): { emitted: string[]; text: string } {
    const emitted: string[] = [];
    const s = new StorableStream((p) => emitted.push(p));
    for (const p of pieces) s.push(p);
    s.end();
    return { emitted, text: s.text };
  }

  it('emits the pieces as they come; text is what was emitted', () => {
    expect(run(['Hello', ', ', 'world'])).toEqual({ emitted: ['Hello', ', ', 'world'], text: 'Hello, world' });
  });

  it('keeps a surrogate pair split across two pieces', () => {
    const [high, low] = ['😀'.charAt(0), '😀'.charAt(1)];
    expect(run([`smile ${high}`, `${low}!`])).toEqual({ emitted: ['smile ', '😀!'], text: 'smile 😀!' });
  });

  it('makes lone surrogates and NUL storable, also a high surrogate left at the very end', () => {
    expect(run(['a\u0000', '\udc00b', 'c\ud800']).text).toBe('a\ufffdbc\ufffd');
    expect(run(['\ud800', '\ud800', 'x']).text).toBe('\ufffd\ufffdx');
  });

  it('emits nothing for pieces that become empty', () => {
    expect(run(['\u0000', '', 'ok']).emitted).toEqual(['ok']);
  });
});
