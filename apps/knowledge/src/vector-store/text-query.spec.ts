import { MAX_QUERY_TERMS, queryTerms, websearchOrQuery } from './text-query';

describe('queryTerms', () => {
  it('keeps content words, lower-cased and distinct', () => {
    expect(queryTerms('How do I reset my Password? Reset!')).toEqual(['reset', 'password']);
  });

  it('keeps the function words when nothing else is left', () => {
    expect(queryTerms('How do I')).toEqual(['how', 'do', 'i']);
  });

  it('adds the bigrams of CJK and Thai runs', () => {
    expect(queryTerms('怎么重置密码')).toEqual(['怎么重置密码', '怎么', '么重', '重置', '置密', '密码']);
    expect(queryTerms('ลืมรหัสผ่าน')).toContain('รห');
  });

  it('splits on punctuation and keeps digits and accented letters', () => {
    expect(queryTerms("Can't log in on iOS 17 — l'application plante, café")).toEqual(['t', 'log', 'ios', '17', 'l', 'application', 'plante', 'café']);
  });

  it('has a bounded size', () => {
    const many = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');
    expect(queryTerms(many)).toHaveLength(MAX_QUERY_TERMS);
    expect(queryTerms('   ')).toEqual([]);
  });
});

describe('websearchOrQuery', () => {
  it('quotes every term and joins them with or', () => {
    expect(websearchOrQuery(['reset', 'password'])).toBe('"reset" or "password"');
    expect(websearchOrQuery(['a"b'])).toBe('"a b"');
  });
});
