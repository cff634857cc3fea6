import { answerTypesIn, expectedAnswerType, isAnswerType } from './answer-types';

describe('expected answer types (issue 33)', () => {
  it.each([
    ['What time do you open in the morning?', '#:time'],
    ['What are your business hours?', '#:time'],
    ['How long does delivery take?', '#:duration'],
    ['Within how many days can I return a purchase?', '#:duration'],
    ['When will I get my money back?', '#:when'],
    ['How much does shipping cost?', '#:money'],
    ['Do you charge a fee for deliveries?', '#:money'],
    ['Where are you located?', '#:place'],
    ['Which town is the shop in?', '#:place'],
    ['Is there a guarantee on your products?', null],
    ['Do you offer gift wrapping?', null],
  ])('%s asks for %s', (question, type) => {
    expect(expectedAnswerType(question)).toBe(type);
  });

  it('reads values of each type in a passage sentence, whatever the words around them', () => {
    expect(answerTypesIn('The shop opens at 9 am and closes at 7 pm.')).toEqual(['#:time', '#:when']);
    expect(answerTypesIn('Open from 10:30 to 18:00.')).toContain('#:time');
    expect(answerTypesIn('Delivery is free for orders above ₹999.')).toEqual(['#:money']);
    expect(answerTypesIn('Libre ang pagpapadala para sa order na higit sa ₱1,500.')).toEqual(['#:money']);
    expect(answerTypesIn('Orders are delivered by courier in 3 to 5 days.')).toEqual(['#:duration', '#:when']);
    expect(answerTypesIn('We repay the full amount within five working days.')).toContain('#:duration');
    expect(answerTypesIn('Every appliance comes with a two-year warranty.')).toContain('#:duration');
    expect(answerTypesIn('Our store is situated at 12 Harbour Road, Kochi.')).toEqual(['#:place']);
    // No value: a number alone, or a word that only looks like one.
    expect(answerTypesIn('We have 12 branches and a team of amateurs.')).toEqual([]);
    expect(answerTypesIn('Unused items can be brought back with the receipt.')).toEqual([]);
  });

  it('reads a text of many numbers in linear time (no backtracking blow-up on "1.1.1.1…")', () => {
    const started = performance.now();
    for (const text of ['1.'.repeat(30_000) + 'x', '1,'.repeat(30_000) + 'rs', '12 a b c '.repeat(10_000), '1 to '.repeat(20_000)]) answerTypesIn(text);
    // Quadratic matching took 3.5-4.3 s for the first two alone; linear takes a few milliseconds.
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('its terms are not words: no stem or synonym of "time" reaches them', () => {
    expect(isAnswerType('#:time')).toBe(true);
    expect(isAnswerType('time')).toBe(false);
  });
});
