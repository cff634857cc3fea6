/**
 * Expected answer types (TEXT_MATCH=stems, English; issue 33): the classic first step of
 * question answering. "What time do you open?" asks for a clock time, "How much does shipping
 * cost?" for an amount of money, "How long …?" for a duration, "Where …?" for a street address,
 * whatever words the passage uses around it. The question's type becomes one more term of the
 * question, and a sentence that holds a value of that type ("9 am", "₹999", "3 to 5 days",
 * "12 Harbour Road") contains it. It weighs like any other term (by its rarity among the
 * passages), so a value that every passage holds decides nothing, and a question about
 * something the passages never mention ("What time is it in London?") still needs its topic.
 *
 * Only English questions are typed: the question cues are English words. The values are read in
 * any passage (digits, currency signs, English units), so an English question over a passage
 * that quotes "₱1,500" still finds its amount.
 */

/** An answer type's term: never a word (no letters before the colon), so it only matches itself. */
export type AnswerType = '#:time' | '#:when' | '#:money' | '#:duration' | '#:place';

const NUMBER_WORD = '\\d+(?:[.,]\\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty';

/**
 * Values in a passage sentence, by type. Every repetition is bounded, so a text of many numbers
 * ("1.1.1.1…", in an uploaded file) is read in linear time.
 */
const VALUES: readonly [AnswerType, RegExp][] = [
  // 9 am, 10.30 p.m., 18:00
  ['#:time', /\b\d{1,2}(?:[:.]\d{2})?\s*(?:a\.?m\.?|p\.?m\.?)(?![\p{L}])|\b\d{1,2}:\d{2}\b/iu],
  // ₹999, $ 20, 15 euros, 1,500 INR
  ['#:money', /[₹$€£¥₱₩฿]\s?\d|\b\d+(?:[.,]\d+){0,4}\s?(?:rs|inr|usd|eur|gbp|php|dollars?|euros?|pounds?|rupees?|pesos?)\b/iu],
  // 24 hours, 3 to 5 days, five working days, two-year
  ['#:duration', new RegExp(`\\b(?:${NUMBER_WORD})(?:\\s*(?:to|-|–)\\s*(?:${NUMBER_WORD}))?[\\s-]*(?:working\\s+|business\\s+)?(?:minutes?|hours?|days?|weeks?|months?|years?)\\b`, 'iu')],
  // 12 Harbour Road, 221B Baker Street
  ['#:place', /\b\d+[a-z]?\s+(?:[\p{L}'-]+\s+){1,3}(?:road|street|st|avenue|ave|lane|rd|boulevard|blvd|drive|square|highway)\b/iu],
];

/** Cues of an English question, by the type it asks for (the first that matches wins). */
const CUES: readonly [AnswerType, RegExp][] = [
  ['#:time', /\bwhat time\b|\b(?:opening|closing|business|office|shop|store) (?:hours|times?)\b/i],
  ['#:duration', /\bhow long\b|\bhow many (?:minutes|hours|days|weeks|months|years)\b|\bwithin how\b/i],
  ['#:when', /\bwhen\b/i],
  ['#:money', /\bhow much\b|\b(?:cost|costs|price|prices|fee|fees)\b/i],
  ['#:place', /\bwhere\b|\bwhich (?:town|city|street|area)\b|\baddress\b/i],
];

/** The answer type an English question asks for, if any. */
export function expectedAnswerType(question: string): AnswerType | null {
  for (const [type, cue] of CUES) if (cue.test(question)) return type;
  return null;
}

/** The answer types a text holds values of ("when" is a clock time or a duration). */
export function answerTypesIn(text: string): AnswerType[] {
  const out: AnswerType[] = [];
  for (const [type, value] of VALUES) if (value.test(text)) out.push(type);
  if (out.includes('#:time') || out.includes('#:duration')) out.push('#:when');
  return out;
}

/** Whether a term is an answer type's (it then matches only itself). */
export function isAnswerType(term: string): boolean {
  return term.startsWith('#:');
}
