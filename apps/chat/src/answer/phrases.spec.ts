import { SUPPORTED_LANGUAGES } from './language';
import { PHRASES, PHRASE_KEYS, phrase, sourcesLine } from './phrases';

describe('phrases', () => {
  it.each(SUPPORTED_LANGUAGES)('%s has every phrase, non-empty', (language) => {
    for (const key of PHRASE_KEYS) expect(PHRASES[language][key].trim()).not.toBe('');
  });

  it('has a translation, not English, for every language but English', () => {
    for (const language of SUPPORTED_LANGUAGES.filter((l) => !l.startsWith('en'))) {
      for (const key of PHRASE_KEYS) expect(PHRASES[language][key]).not.toBe(PHRASES.en[key]);
    }
  });

  it('looks up by full code, by base, and falls back to English', () => {
    expect(phrase('handoff', 'ja-JP')).toBe('担当者におつなぎします。');
    expect(phrase('handoff', 'ja')).toBe('担当者におつなぎします。');
    expect(phrase('sources', 'tl')).toBe('Mga sanggunian:');
    expect(phrase('leadIn', 'EN-gb')).toBe('Here is what I found:');
    expect(phrase('noKnowledge', 'fr-FR')).toBe(PHRASES.en.noKnowledge);
  });

  it('formats a sources line, empty without sources', () => {
    expect(sourcesLine(['https://a.example', 'FAQ'], 'zh-CN')).toBe('来源： https://a.example, FAQ');
    expect(sourcesLine([], 'en')).toBe('');
  });
});
