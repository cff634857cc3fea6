import { QUESTION_KEY_MAX, questionKey } from './question-key';

describe('questionKey', () => {
  it('groups trivially different phrasings of one question', () => {
    const key = questionKey('What is the price?');
    expect(key).toBe('what is the price');
    for (const variant of ['what is the price', 'What is the price ??', '  WHAT   is the\tprice!  ', 'What is the price？', '¿What is the "price"?', 'What is the price 😊']) {
      expect(questionKey(variant)).toBe(key);
    }
  });

  it('folds full-width and compatibility forms (NFKC) before lower-casing', () => {
    expect(questionKey('ＷＨＡＴ ｉｓ　ｔｈｅ ＰＲＩＣＥ')).toBe('what is the price');
    expect(questionKey('ﬁnd the ﬂat')).toBe('find the flat');
    expect(questionKey('ｶﾀｶﾅ')).toBe('カタカナ');
  });

  it('drops apostrophes inside words and splits on other punctuation', () => {
    expect(questionKey("What's the price?")).toBe(questionKey('Whats the price'));
    expect(questionKey('What’s the price?')).toBe('whats the price');
    expect(questionKey('price/quote,please')).toBe('price quote please');
  });

  it('keeps letters, digits and combining marks of every script', () => {
    expect(questionKey('料金はいくらですか？')).toBe('料金はいくらですか');
    expect(questionKey('料金は いくら ですか。')).toBe('料金は いくら ですか');
    expect(questionKey('Café crème 2 €')).toBe('café crème 2');
    expect(questionKey('ราคาเท่าไหร่')).toBe('ราคาเท่าไหร่');
    expect(questionKey('Straße?')).toBe('straße');
  });

  it('is null when no word is left', () => {
    expect(questionKey('???')).toBeNull();
    expect(questionKey('  \n ')).toBeNull();
    expect(questionKey('👍🎉')).toBeNull();
  });

  it('is at most QUESTION_KEY_MAX code points and never ends with a space', () => {
    const long = questionKey('a'.repeat(199) + ' b ' + 'c'.repeat(500));
    expect(long).toBe('a'.repeat(199));
    const astral = questionKey('𠀀'.repeat(300))!;
    expect(Array.from(astral)).toHaveLength(QUESTION_KEY_MAX);
  });

  it('is idempotent', () => {
    for (const text of ['What is the price ??', 'ＷＨＡＴ ｉｓ', "it's İstanbul", '料金は？']) {
      const key = questionKey(text)!;
      expect(questionKey(key)).toBe(key);
    }
  });
});
