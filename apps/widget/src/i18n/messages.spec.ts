import { LANGUAGES, MESSAGE_KEYS, messagesFor } from './index';
import { en } from './en';

// Texts that are the same word in English and the language, on purpose (Filipino uses these).
const SAME_AS_ENGLISH: Record<string, string[]> = {
  'fil-PH': ['tab_chat', 'email', 'assistant'],
};

// The script each language is written in: every text has at least one letter of it.
const SCRIPT: Record<string, RegExp> = {
  'ja-JP': /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u,
  'ko-KR': /\p{Script=Hangul}/u,
  'zh-CN': /\p{Script=Han}/u,
  'th-TH': /\p{Script=Thai}/u,
  'ar-AE': /\p{Script=Arabic}/u,
  'hi-IN': /\p{Script=Devanagari}/u,
  'ta-IN': /\p{Script=Tamil}/u,
};

const placeholders = (text: string): string[] => (text.match(/\{\w+\}/g) ?? []).sort();
const translated = LANGUAGES.filter((code) => code !== 'en' && code !== 'en-IN');

describe('widget messages', () => {
  it('keeps the English texts of the contract (the e2e tests find the widget by them)', () => {
    expect(en).toMatchObject({
      launcher_open: 'Open chat',
      launcher_close: 'Close chat',
      tab_chat: 'Chat',
      tab_booking: 'Book',
      tab_support: 'Support',
      message_label: 'Message',
      send: 'Send',
      feedback_up: 'Helpful',
      feedback_down: 'Not helpful',
      handoff: 'Talk to a person',
      contact_me: 'Contact me',
      lead_submit: 'Send details',
      preferred_time: 'Preferred time',
      booking_submit: 'Request booking',
      ticket_submit: 'Send ticket',
      time_zone_hint: 'Your time zone: {tz}',
      writing: 'The assistant is writing…',
      starters: 'Suggested questions',
      action_confirm: 'Confirm',
      cancel: 'Cancel',
    });
    expect(MESSAGE_KEYS).toHaveLength(56);
    expect(new Set(MESSAGE_KEYS).size).toBe(MESSAGE_KEYS.length);
  });

  it('en-IN uses the English texts themselves', () => {
    expect(messagesFor('en-IN')).toBe(en);
  });

  describe.each(LANGUAGES)('%s', (code) => {
    const messages = messagesFor(code);

    it('has every key and nothing else, each a non-empty trimmed NFC text', () => {
      expect(Object.keys(messages).sort()).toEqual([...MESSAGE_KEYS].sort());
      for (const key of MESSAGE_KEYS) {
        const text = messages[key];
        expect(typeof text).toBe('string');
        expect(text.trim()).not.toBe('');
        expect(text).toBe(text.trim());
        expect(text).toBe(text.normalize('NFC'));
        expect(text).not.toMatch(/\.\.\.|\s{2}/);
      }
    });

    it('keeps the placeholders and the ellipses of the English text', () => {
      for (const key of MESSAGE_KEYS) {
        expect({ key, placeholders: placeholders(messages[key]) }).toEqual({ key, placeholders: placeholders(en[key]) });
        if (en[key].endsWith('…')) expect({ key, text: messages[key] }).toEqual({ key, text: expect.stringMatching(/…$/) });
      }
    });
  });

  describe.each(translated)('%s is translated', (code) => {
    const messages = messagesFor(code);

    it('differs from English except where the word is genuinely the same', () => {
      const same = MESSAGE_KEYS.filter((key) => messages[key] === en[key]);
      expect(same.sort()).toEqual((SAME_AS_ENGLISH[code] ?? []).sort());
    });

    it('is written in its own script', () => {
      const script = SCRIPT[code];
      if (!script) return;
      const outside = MESSAGE_KEYS.filter((key) => !script.test(messages[key]));
      expect(outside).toEqual([]);
    });
  });

  it('has no two languages sharing a table but en and en-IN', () => {
    const tables = LANGUAGES.map((code) => messagesFor(code));
    expect(new Set(tables).size).toBe(LANGUAGES.length - 1);
  });
});
