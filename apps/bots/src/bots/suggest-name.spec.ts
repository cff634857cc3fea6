import 'reflect-metadata';
import { charLength } from '@sa/contracts';
import { suggestName } from './suggest-name';

const lower = (names: string[]) => new Set(names.map((n) => n.toLowerCase()));
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const wellFormed = (s: string) => !LONE_SURROGATE.test(s);

describe('suggestName', () => {
  it('appends 2 to a free name', () => {
    expect(suggestName('Support', lower(['Support']))).toBe('Support 2');
    expect(suggestName('Support', new Set())).toBe('Support 2');
  });

  it('skips taken numbers, case-insensitively', () => {
    expect(suggestName('Support', lower(['Support', 'Support 2', 'SUPPORT 3']))).toBe('Support 4');
    expect(suggestName('Support', lower(['support', 'support 2', 'support 4']))).toBe('Support 3');
  });

  it('keeps the case of the requested name', () => {
    expect(suggestName('sUpPoRt', lower(['Support']))).toBe('sUpPoRt 2');
  });

  it('counts on from a trailing number instead of appending another', () => {
    expect(suggestName('Support 2', lower(['Support', 'Support 2']))).toBe('Support 3');
    expect(suggestName('Support 7', lower(['Support 7']))).toBe('Support 2');
    expect(suggestName('Support   12', lower(['Support 12', 'Support 2']))).toBe('Support 3');
  });

  it('keeps a name that is only a number', () => {
    expect(suggestName('42', lower(['42']))).toBe('42 2');
  });

  it('trims the name and collapses nothing else', () => {
    expect(suggestName('  Sales  Bot  ', lower(['Sales  Bot']))).toBe('Sales  Bot 2');
  });

  it('fits the 30-character limit by shortening the name, not the number', () => {
    const name = 'Customer Support Assistant Bot'; // 30 characters
    expect(charLength(name)).toBe(30);
    expect(suggestName(name, lower([name]))).toBe('Customer Support Assistant B 2');
    const taken = lower([name, ...Array.from({ length: 8 }, (_, i) => `Customer Support Assistant B ${i + 2}`)]);
    expect(suggestName(name, taken)).toBe('Customer Support Assistant 10');
  });

  it('drops white space left at the end of a shortened name', () => {
    // Cutting at 28 characters would end in a space.
    const name = 'a'.repeat(27) + ' bc';
    expect(suggestName(name, lower([name]))).toBe('a'.repeat(27) + ' 2');
  });

  it('counts multi-byte characters as one character each and never splits one', () => {
    const emoji = '😀'.repeat(30);
    const s = suggestName(emoji, lower([emoji]));
    expect(s).toBe('😀'.repeat(28) + ' 2');
    expect(charLength(s)).toBe(30);
    expect(s.length).toBe(58); // UTF-16 units: more than 30, which is why length is not used
    expect(wellFormed(s)).toBe(true);
    expect(wellFormed('😀'.slice(0, 1))).toBe(false); // the check itself sees a split emoji

    const cjk = '日本語のサポートボット'.repeat(3); // 33 characters
    const c = suggestName(cjk, new Set());
    expect(charLength(c)).toBe(30);
    expect(c).toBe([...cjk].slice(0, 28).join('') + ' 2');

    // An astral character right at the cut is kept whole or dropped whole.
    const mixed = 'a'.repeat(27) + '𠮷𠮷𠮷';
    const m = suggestName(mixed, lower([mixed]));
    expect(m).toBe('a'.repeat(27) + '𠮷 2');
    expect(wellFormed(m)).toBe(true);
  });

  it('honours another maximum', () => {
    expect(suggestName('Support', lower(['Support']), 6)).toBe('Supp 2');
  });

  it('never returns a taken name and always fits (randomised)', () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const alphabet = ['a', 'B', ' ', '7', 'é', '😀', '語', 'e\u0301'];
    for (let i = 0; i < 500; i++) {
      const len = 1 + rand(34);
      let name = '';
      while (charLength(name) < len) name += alphabet[rand(alphabet.length)];
      name = [...name].slice(0, len).join('');
      if (!name.trim()) name = 'x' + name;
      const taken = new Set<string>([name.toLowerCase()]);
      for (let k = 0; k < rand(40); k++) taken.add(suggestName(name, taken));
      const s = suggestName(name, taken);
      expect(taken.has(s.toLowerCase())).toBe(false);
      expect(charLength(s)).toBeLessThanOrEqual(30);
      expect(wellFormed(s)).toBe(true);
    }
  });

  it('never returns a taken name even when every number up to 9999 is taken', () => {
    const name = 'x'.repeat(30);
    const taken = new Set<string>([name]);
    for (let n = 2; n < 10_000; n++) taken.add('x'.repeat(30 - ` ${n}`.length) + ` ${n}`);
    const s = suggestName(name, taken);
    expect(taken.has(s.toLowerCase())).toBe(false);
    expect(charLength(s)).toBeLessThanOrEqual(30);
    expect(s.startsWith('x')).toBe(true);
  });
});
