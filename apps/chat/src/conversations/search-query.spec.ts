import { MIN_FULL_TEXT_LENGTH, containsPattern, searchPlan } from './search-query';

describe('searchPlan', () => {
  it('is null for no query or a blank one', () => {
    expect(searchPlan(undefined)).toBeNull();
    expect(searchPlan('')).toBeNull();
    expect(searchPlan('   ')).toBeNull();
  });

  it('searches words with full text', () => {
    expect(searchPlan('  refund policy ')).toEqual({ kind: 'fulltext', text: 'refund policy' });
    expect(searchPlan('"opening hours" or price -tax')).toEqual({ kind: 'fulltext', text: '"opening hours" or price -tax' });
  });

  it('matches short queries and queries without letters or digits as substrings', () => {
    expect(MIN_FULL_TEXT_LENGTH).toBe(3);
    expect(searchPlan('pr')).toEqual({ kind: 'substring', pattern: '%pr%', prefilter: null });
    expect(searchPlan('?!?')).toEqual({ kind: 'substring', pattern: '%?!?%', prefilter: null });
  });

  it('matches CJK substrings, pre-filtered by their bigrams', () => {
    expect(searchPlan('営業時間')).toEqual({ kind: 'substring', pattern: '%営業時間%', prefilter: "'営業' & '業時' & '時間'" });
    expect(searchPlan('時')).toEqual({ kind: 'substring', pattern: '%時%', prefilter: null });
    expect(searchPlan('Tokyo 営業')).toEqual({ kind: 'substring', pattern: '%Tokyo 営業%', prefilter: "'営業'" });
  });

  it('leaves bigrams with combining marks out of the pre-filter', () => {
    // เท่า: เ and ท are letters, ่ (U+0E48) is a combining mark.
    expect(searchPlan('เท่า')).toEqual({ kind: 'substring', pattern: '%เท่า%', prefilter: "'เท'" });
  });
});

describe('containsPattern', () => {
  it('escapes the LIKE wildcards and the escape character', () => {
    expect(containsPattern('100%_off\\now')).toBe('%100\\%\\_off\\\\now%');
  });
});
