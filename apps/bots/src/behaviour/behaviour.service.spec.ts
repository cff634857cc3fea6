import { cleanStarterQuestions } from './behaviour.service';

describe('cleanStarterQuestions', () => {
  it('trims, drops empty lines and repeats (case-insensitive, the first kept), keeps the order', () => {
    expect(cleanStarterQuestions(['  What does it cost? ', 'Opening hours', 'what does it cost?', '   ', 'Ünïcode ok?'])).toEqual(['What does it cost?', 'Opening hours', 'Ünïcode ok?']);
    expect(cleanStarterQuestions([])).toEqual([]);
  });
});
