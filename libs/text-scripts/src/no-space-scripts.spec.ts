import { hasNoSpaceScript, scriptBigrams, scriptBigramsFunctionSql } from './no-space-scripts';

describe('scriptBigrams', () => {
  it('splits runs of no-space scripts into character bigrams; a run of one is that character', () => {
    expect(scriptBigrams('How to reset 密码重置方法 and ภาษาไทย 한국어 x 中 パスワード').join(' ')).toBe('密码 码重 重置 置方 方法 ภา าษ ษา าไ ไท ทย 한국 국어 中 パス スワ ワー ード');
  });

  it('ignores scripts written with spaces', () => {
    expect(scriptBigrams('Straße naïve café Привет مرحبا नमस्ते')).toEqual([]);
    expect(hasNoSpaceScript('Straße naïve café Привет مرحبا नमस्ते')).toBe(false);
  });

  it('counts code points, not UTF-16 units (CJK extension B)', () => {
    expect(scriptBigrams('𠀀𠀁')).toEqual(['𠀀𠀁']);
    expect(scriptBigrams('a 𠀀𠀁 b 𠀂')).toEqual(['𠀀𠀁', '𠀂']);
  });

  it('covers the edges of every range and nothing just outside them', () => {
    const inside = [0x0e00, 0x0eff, 0x1000, 0x109f, 0x1780, 0x17ff, 0x3040, 0x30ff, 0x31f0, 0x31ff, 0x3400, 0x4dbf, 0x4e00, 0x9fff, 0xac00, 0xd7af, 0xf900, 0xfaff, 0xff66, 0xff9f, 0x20000, 0x3ffff];
    const outside = [0x0dff, 0x0f00, 0x0fff, 0x10a0, 0x177f, 0x1800, 0x303f, 0x3100, 0x31ef, 0x3200, 0x33ff, 0x4dc0, 0xa000, 0xabff, 0xd7b0, 0xf8ff, 0xfb00, 0xff65, 0xffa0, 0x1ffff, 0x40000];
    for (const cp of inside) expect([cp.toString(16), hasNoSpaceScript(String.fromCodePoint(cp))]).toEqual([cp.toString(16), true]);
    for (const cp of outside) expect([cp.toString(16), hasNoSpaceScript(String.fromCodePoint(cp))]).toEqual([cp.toString(16), false]);
  });

  it('is the same on every call (the shared regular expression keeps no state between calls)', () => {
    expect(hasNoSpaceScript('東京')).toBe(true);
    expect(hasNoSpaceScript('東京')).toBe(true);
    expect(scriptBigrams('東京都')).toEqual(scriptBigrams('東京都'));
  });
});

describe('scriptBigramsFunctionSql', () => {
  it('is the function the chat and knowledge migrations have always created, in the schema named', () => {
    // Pinned: a change here changes existing tsv columns' meaning (see NO_SPACE_SCRIPT_RANGES).
    expect(scriptBigramsFunctionSql('chat')).toBe(`
      CREATE FUNCTION chat.script_bigrams(t text) RETURNS text
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
        SELECT coalesce(string_agg(substr(r.m[1], i.i, 2), ' ' ORDER BY r.ord, i.i), '')
        FROM regexp_matches(t, '([\\u0E00-\\u0EFF\\u1000-\\u109F\\u1780-\\u17FF\\u3040-\\u30FF\\u31F0-\\u31FF\\u3400-\\u4DBF\\u4E00-\\u9FFF\\uAC00-\\uD7AF\\uF900-\\uFAFF\\uFF66-\\uFF9F\\U00020000-\\U0003FFFF]+)', 'g') WITH ORDINALITY AS r(m, ord)
        CROSS JOIN LATERAL generate_series(1, greatest(char_length(r.m[1]) - 1, 1)) AS i(i)
      $fn$`);
    expect(scriptBigramsFunctionSql('knowledge')).toContain('CREATE FUNCTION knowledge.script_bigrams(t text)');
  });

  it('refuses a schema name that would need quoting', () => {
    expect(() => scriptBigramsFunctionSql('chat; DROP SCHEMA chat')).toThrow('not a plain schema name');
    expect(() => scriptBigramsFunctionSql('Chat')).toThrow('not a plain schema name');
  });
});
