import { containsFact, missingFacts, normaliseForMatch } from './fact-match';

describe('fact matching', () => {
  it('folds case, accents and spacing', () => {
    expect(normaliseForMatch('  Café   CRÈME\tbrûlée ')).toBe('cafe creme brulee');
    expect(containsFact('We serve a Café crème every morning.', 'cafe CREME')).toBe(true);
    expect(containsFact('Straße', 'strasse')).toBe(false); // ß is a letter, not an accent
    expect(containsFact('ｆｕｌｌ ｗｉｄｔｈ', 'full width')).toBe(true); // NFKD
  });

  it('treats 10:00, 10.00, 10 am, 10am and 10 a.m. as one time', () => {
    for (const reply of ['We open at 10:00.', 'We open at 10.00', 'We open at 10 am!', 'We open at 10am', 'We open at 10 a.m. sharp', 'We open at 10 AM']) {
      for (const fact of ['10:00', '10.00', '10 am', '10am', 'open at 10 a.m.']) expect([reply, fact, containsFact(reply, fact)]).toEqual([reply, fact, true]);
    }
  });

  it('treats 22:00 as 10 pm, 12 am as 0:00, 12 pm as 12:00, and 09:00 as 9:00', () => {
    expect(containsFact('We close at 22:00.', '10 pm')).toBe(true);
    expect(containsFact('We close at 10pm.', '22:00')).toBe(true);
    expect(containsFact('We close at 10:30 p.m.', '22:30')).toBe(true);
    expect(containsFact('Open from 12 am', '00:00')).toBe(true);
    expect(containsFact('Lunch at 12 pm', '12:00')).toBe(true);
    expect(containsFact('Open at 09:00', '9 am')).toBe(true);
    expect(containsFact('We close at 22:00.', '10:00')).toBe(false);
    expect(containsFact('We open at 10 am', '10 pm')).toBe(false);
  });

  it('ignores thousands separators', () => {
    expect(containsFact('It costs 1,000 dollars', '1000 dollars')).toBe(true);
    expect(containsFact('It costs 1000 dollars', '1,000 dollars')).toBe(true);
    expect(containsFact('Population 1,234,567.', '1234567')).toBe(true);
    expect(containsFact('It costs 1,00 euros', '100 euros')).toBe(false);
  });

  it('matches whole words only, and keeps decimals', () => {
    expect(containsFact('It costs 900 dollars', '90')).toBe(false);
    expect(containsFact('It costs 900 dollars', '900')).toBe(true);
    expect(containsFact('version 3.5 is out', '3.5')).toBe(true);
    expect(containsFact('version 3.5 is out', '3')).toBe(false);
    expect(containsFact('a warranty of ten years', 'ten-year')).toBe(false);
    expect(containsFact('a ten-year warranty', 'ten year')).toBe(true);
  });

  it('never finds an empty fact, and lists the missing ones in order', () => {
    expect(containsFact('anything', '  ...  ')).toBe(false);
    expect(missingFacts('Open 9 am to 5 pm, Monday to Friday', ['9:00', 'saturday', '17:00', 'sunday'])).toEqual(['saturday', 'sunday']);
  });
});
