/**
 * Fact matching (issue 33): a fact is found in a reply when its normalised words appear, in
 * order and whole, in the normalised reply. Normalising folds what people write differently for
 * the same thing: letter case; accents (NFKD, marks dropped); spacing and punctuation; thousands
 * separators (1,000 and 1000); and clock times (10:00, 10.00, 10 am, 10am, 10 a.m. are one time;
 * 22:00 is 10 pm; 09:00 is 9:00). A pure function of its input.
 */

const MERIDIEM = /(?<![\p{L}\p{N}])(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?\s?m\.?(?![\p{L}\p{N}])/gu;
const CLOCK = /(?<![\p{L}\p{N}.,:])0?(\d{1,2})[:.](\d{2})(?![\p{N}]|[:.,]\d)/gu;
const THOUSANDS = /(?<=\d),(?=\d{3}(?!\d))/g;

function clock(hour: number, minutes: string): string {
  return `${hour}:${minutes}`;
}

/** The text as facts are matched in it: folded, times and numbers in one form, words separated by single spaces. */
export function normaliseForMatch(text: string): string {
  let s = text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
  s = s.replace(THOUSANDS, '');
  s = s.replace(MERIDIEM, (whole, h: string, m: string | undefined, half: string) => {
    const hour = Number(h);
    if (hour < 1 || hour > 12 || (m !== undefined && Number(m) > 59)) return whole;
    const h24 = half === 'a' ? hour % 12 : (hour % 12) + 12;
    return ` ${clock(h24, m ?? '00')} `;
  });
  s = s.replace(CLOCK, (whole, h: string, m: string) => (Number(h) <= 24 && Number(m) <= 59 ? clock(Number(h), m) : whole));
  // Punctuation and symbols separate words; a '.', ',' or ':' between digits belongs to the number.
  s = s.replace(/[^\p{L}\p{N}.,:]+/gu, ' ').replace(/[.,:](?!\p{N})|(?<!\p{N})[.,:]/gu, ' ');
  return s.replace(/\s+/g, ' ').trim();
}

/** Whether `fact` is in `reply` (both normalised; whole words only). An empty fact is never found. */
export function containsFact(reply: string, fact: string): boolean {
  const f = normaliseForMatch(fact);
  if (!f) return false;
  return ` ${normaliseForMatch(reply)} `.includes(` ${f} `);
}

/** The facts not found in the reply, in their order. */
export function missingFacts(reply: string, facts: readonly string[]): string[] {
  const r = ` ${normaliseForMatch(reply)} `;
  return facts.filter((fact) => {
    const f = normaliseForMatch(fact);
    return !f || !r.includes(` ${f} `);
  });
}
