import { CaptureMethod, ScoreBand } from '@sa/contracts';
import { BUYING_TERMS, COMPANY_PATTERNS, FREE_MAIL_LABELS, INTENT_LABELS, IntentCategory, NAME_PATTERNS, NAME_STOPWORDS, NEGATIVE_TERMS, PHONE_CUES, POSITIVE_TERMS, URGENCY_TERMS } from './lexicon';

/**
 * The default rule-based lead scorer (no model): reads the visitor's messages of one session and
 * finds contact details, buying signals, urgency, sentiment, qualification answers and a company,
 * in the supported languages as far as simple patterns allow. Pure and deterministic.
 */

export interface ScoringThresholds {
  hot: number;
  warm: number;
}

export const DEFAULT_THRESHOLDS: ScoringThresholds = { hot: 70, warm: 40 };

export interface LeadScore {
  score: number;
  band: ScoreBand;
  category: IntentCategory;
  summary: string;
  sentiment: 'positive' | 'neutral' | 'negative';
  qualification: Record<string, string>;
  confidence: number;
  name: string | null;
  email: string | null;
  phone: string | null;
  company: string | null;
  /** conversational: the visitor gave contact details; inferred: signals only. */
  capturedVia: Extract<CaptureMethod, 'conversational' | 'inferred'>;
  /** Whether the session is a lead: contact details given, or signals scoring at least warm. */
  isLead: boolean;
  /** The signals found, for the summary and tests. */
  signals: string[];
}

/** Points of each signal; the score is their sum, clamped to 0..100. */
export const WEIGHTS = {
  email: 25,
  phone: 20,
  name: 10,
  company: 5,
  urgency: 10,
  qualificationEach: 5,
  qualificationMax: 15,
  positive: 5,
  negative: -10,
  engaged: 5,
  extraIntent: 5,
  intentMax: 40,
  intent: { purchase: 30, booking: 25, pricing: 20, support: 0, complaint: 0, general: 0 } as Record<IntentCategory, number>,
};

const LATIN_TERM = /^[\p{Script=Latin}\p{M}\s'’.-]+$/u;
const termRegexCache = new Map<string, RegExp>();

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A term of a lexicon found in text (already lower-cased). Latin-script terms match whole words
 * (a trailing `*` allows any ending: `subscri*`); terms of other scripts match as substrings,
 * since several of them are written without spaces.
 */
export function hasTerm(text: string, term: string): boolean {
  const prefix = term.endsWith('*');
  const t = prefix ? term.slice(0, -1) : term;
  if (!LATIN_TERM.test(t)) return text.includes(t);
  let re = termRegexCache.get(term);
  if (!re) {
    re = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegex(t).replace(/\s+/g, '\\s+')}${prefix ? '' : '(?![\\p{L}\\p{N}])'}`, 'u');
    termRegexCache.set(term, re);
  }
  return re.test(text);
}

function matchedTerms(text: string, terms: readonly string[]): string[] {
  return terms.filter((t) => hasTerm(text, t));
}

const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.[\p{L}]{2,}/giu;

export function findEmail(text: string): string | null {
  const m = text.match(EMAIL);
  return m ? m[m.length - 1].replace(/\.+$/, '').toLowerCase() : null;
}

const INTERNATIONAL_PHONE = /(?:\+|00)\d[\d\s().\-–]{5,20}\d/g;
const LOCAL_PHONE = /(?<![\d+])\(?0\d[\d\s().\-–]{6,16}\d(?!\d)/g;
const ANY_DIGITS = /\+?\(?\d[\d\s().\-–]{5,20}\d/g;

function digitsOf(s: string): string {
  return s.replace(/\D/g, '');
}

/** The phone number as `+<digits>` (international) or its digits (local format), or null. */
export function normalisePhone(raw: string): string | null {
  const trimmed = raw.trim();
  const international = trimmed.startsWith('+') || trimmed.startsWith('00');
  let digits = digitsOf(trimmed);
  if (trimmed.startsWith('00')) digits = digits.slice(2);
  if (digits.length < 7 || digits.length > 15) return null;
  return international ? `+${digits}` : digits;
}

/**
 * A phone number: international (`+44 20 7946 0958`, `0044…`), local with a trunk 0
 * (`020 7946 0958`, `090-1234-5678`), or any 7–15 digit run after a phone cue ("call me at",
 * "電話", "전화", "whatsapp"…). Dates and prices (no cue, no + or 0) are not taken.
 */
export function findPhone(text: string, lower: string): string | null {
  for (const re of [INTERNATIONAL_PHONE, LOCAL_PHONE]) {
    for (const m of text.matchAll(re)) {
      const p = normalisePhone(m[0]);
      if (p) return p;
    }
  }
  if (PHONE_CUES.some((c) => lower.includes(c))) {
    for (const m of text.matchAll(ANY_DIGITS)) {
      const p = normalisePhone(m[0]);
      if (p && digitsOf(m[0]).length >= 8) return p;
    }
  }
  return null;
}

/** A stop word ends a name unless written as a name (first letter alone capital: "An", "Ni"). */
function isStopword(word: string): boolean {
  const lower = word.toLowerCase();
  if (!NAME_STOPWORDS.has(lower)) return false;
  return word !== lower.charAt(0).toUpperCase() + lower.slice(1) || lower.length === 1;
}

/** Words of a name: letters and marks (any script), apostrophes and hyphens inside. */
const NAME_WORD = /^[\p{L}\p{M}][\p{L}\p{M}'’-]*$/u;

function cleanName(raw: string, requireCapital: boolean): string | null {
  const words: string[] = [];
  for (const w of raw.trim().split(/\s+/)) {
    const word = w.replace(/[.,!?;:。、！？،]+$/u, '');
    if (!word || !NAME_WORD.test(word)) break;
    if (isStopword(word)) break;
    if (requireCapital && /\p{Script=Latin}/u.test(word) && word[0] !== word[0].toUpperCase()) break;
    words.push(word);
    if (words.length === 3 || /[.,!?;:。、！？،]$/u.test(w)) break;
  }
  if (!words.length) return null;
  const name = words.join(' ');
  return name.length <= 80 ? name : null;
}

/** The visitor's name after "my name is", "I am", "je m'appelle", "私は…です", "me llamo"… */
export function findName(text: string): string | null {
  for (const { re, capital } of NAME_PATTERNS) {
    const m = re.exec(text);
    if (!m?.[1]) continue;
    const name = cleanName(m[1], capital);
    if (name) return name;
  }
  return null;
}

function companyFromEmail(email: string | null): string | null {
  if (!email) return null;
  const labels = (email.split('@')[1] ?? '').split('.');
  // acme.io -> acme; mail.acme.co.uk -> acme
  const second = labels.length >= 3 && labels[labels.length - 2].length <= 3 ? labels[labels.length - 3] : labels[labels.length - 2];
  if (!second || FREE_MAIL_LABELS.has(second)) return null;
  return second.charAt(0).toUpperCase() + second.slice(1);
}

/** "from Acme Corp", "at Globex", "I work for Initech", "my company is Umbrella", else the e-mail domain. */
export function findCompany(text: string, email: string | null): string | null {
  for (const m of COMPANY_PATTERNS.flatMap((re) => [...text.matchAll(re)])) {
    if (!m[1]) continue;
    const words: string[] = [];
    for (const w of m[1].split(/\s+/)) {
      const word = w.replace(/[.,!?;:]+$/, '');
      const pattern = words.length ? /^[\p{Lu}\p{N}][\p{L}\p{N}&'’.-]*$/u : /^\p{Lu}[\p{L}\p{N}&'’.-]*$/u;
      if (!word || !pattern.test(word) || NAME_STOPWORDS.has(word.toLowerCase())) break;
      words.push(word);
      if (words.length === 4 || /[.,!?;:]$/.test(w)) break;
    }
    if (words.length) return words.join(' ');
  }
  return companyFromEmail(email);
}

const QUALIFICATION_PATTERNS: { key: string; re: RegExp }[] = [
  { key: 'budget', re: /\bbudget\s*(?:is|of|:|around|about|=)?\s*((?:[$€£¥₹]|usd|eur|gbp)?\s?\d[\d,.]*\s?(?:k|m|usd|eur|gbp|dollars|euros|pounds)?)/iu },
  { key: 'budget', re: /(?:予算|预算|예산|anggaran|bajeti|presupuesto|ngân sách|งบประมาณ|बजट|الميزانية|ميزانية)\D{0,12}(\d[\d,.]*\s?\S{0,6})/u },
  { key: 'company_size', re: /\b(\d[\d,]*\+?\s*(?:employees|people|staff|users|seats|agents|members|empleados|employés|karyawan|pekerja|wafanyakazi))\b/iu },
  { key: 'company_size', re: /(\d[\d,]*\s?(?:人|名|명|คน|người|orang))/u },
  {
    key: 'timeline',
    re: /\b((?:within|in|by|before|next)\s+(?:\d+\s+)?(?:a\s+)?(?:days?|weeks?|months?|quarter|year|monday|tuesday|wednesday|thursday|friday|end of (?:the )?(?:month|week|quarter|year)))\b/iu,
  },
  { key: 'timeline', re: /\b(this\s+(?:week|month|quarter|year)|next\s+(?:week|month|quarter|year)|asap|today|tomorrow)\b/iu },
];

export function findQualification(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { key, re } of QUALIFICATION_PATTERNS) {
    if (out[key]) continue;
    const m = re.exec(text);
    if (m?.[1]) out[key] = m[1].trim().replace(/\s+/g, ' ').slice(0, 100);
  }
  return out;
}

export function bandOf(score: number, t: ScoringThresholds = DEFAULT_THRESHOLDS): ScoreBand {
  if (score >= t.hot) return 'hot';
  if (score >= t.warm) return 'warm';
  return 'cold';
}

const CATEGORY_ORDER: IntentCategory[] = ['purchase', 'booking', 'pricing', 'complaint', 'support', 'general'];

function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
}

/**
 * What is already known of the visitor outside the messages: the widget's identify call, its lead
 * form, or the stored lead. Found in the messages wins; these fill the gaps and score the same.
 */
export interface KnownDetails {
  name?: string | null;
  email?: string | null;
  phone?: string | null;
  company?: string | null;
  qualification?: Record<string, string> | null;
}

/**
 * Scores one session from the visitor's messages (oldest first). The last message counts as the
 * visitor's latest question in the summary. Every signal is looked for in the whole session.
 * `known` details count as if found; `capturedVia` is `conversational` only for contact details
 * the visitor gave in the messages.
 */
export function scoreSession(userMessages: readonly string[], thresholds: ScoringThresholds = DEFAULT_THRESHOLDS, known: KnownDetails = {}): LeadScore {
  const text = userMessages.join('\n');
  const lower = text.toLowerCase();
  const signals: string[] = [];

  const foundEmail = findEmail(text);
  const foundPhone = findPhone(text, lower);
  const email = foundEmail ?? known.email ?? null;
  const phone = foundPhone ?? known.phone ?? null;
  const name = findName(text) ?? known.name ?? null;
  const company = findCompany(text, null) ?? known.company ?? companyFromEmail(email);
  const qualification = { ...(known.qualification ?? {}), ...findQualification(text) };

  const perCategory = new Map<IntentCategory, string[]>();
  for (const [category, terms] of Object.entries(BUYING_TERMS) as [IntentCategory, readonly string[]][]) {
    const found = matchedTerms(lower, terms);
    if (found.length) perCategory.set(category, found);
  }
  const urgency = matchedTerms(lower, URGENCY_TERMS);
  const positive = matchedTerms(lower, POSITIVE_TERMS).length;
  const negative = matchedTerms(lower, NEGATIVE_TERMS).length;
  const sentiment: LeadScore['sentiment'] = negative > positive ? 'negative' : positive > negative ? 'positive' : 'neutral';

  let score = 0;
  if (email) {
    score += WEIGHTS.email;
    signals.push('email');
  }
  if (phone) {
    score += WEIGHTS.phone;
    signals.push('phone');
  }
  if (name) {
    score += WEIGHTS.name;
    signals.push('name');
  }
  if (company) {
    score += WEIGHTS.company;
    signals.push('company');
  }

  const intents = CATEGORY_ORDER.filter((c) => perCategory.has(c));
  const buying = intents.filter((c) => WEIGHTS.intent[c] > 0).sort((a, b) => WEIGHTS.intent[b] - WEIGHTS.intent[a]);
  if (buying.length) {
    score += Math.min(WEIGHTS.intentMax, WEIGHTS.intent[buying[0]] + WEIGHTS.extraIntent * (buying.length - 1));
    signals.push(...buying);
  }
  if (urgency.length) {
    score += WEIGHTS.urgency;
    signals.push('urgency');
  }
  const qualificationCount = Object.keys(qualification).length;
  if (qualificationCount) {
    score += Math.min(WEIGHTS.qualificationMax, WEIGHTS.qualificationEach * qualificationCount);
    signals.push(...Object.keys(qualification));
  }
  if (sentiment === 'positive') score += WEIGHTS.positive;
  if (sentiment === 'negative') score += WEIGHTS.negative;
  if (userMessages.length >= 3 && buying.length) {
    score += WEIGHTS.engaged;
    signals.push('engaged');
  }
  score = Math.max(0, Math.min(100, Math.round(score)));

  // The category: complaint wins when the visitor is negative and complains; else the strongest
  // buying intent; else support; else general.
  let category: IntentCategory = 'general';
  if (perCategory.has('complaint') && sentiment === 'negative') category = 'complaint';
  else if (buying.length) category = buying[0];
  else if (perCategory.has('complaint')) category = 'complaint';
  else if (perCategory.has('support')) category = 'support';

  const hasContact = Boolean(email || phone);
  const capturedVia = foundEmail || foundPhone ? 'conversational' : 'inferred';
  const isLead = hasContact || score >= thresholds.warm;
  const band = bandOf(score, thresholds);

  // More independent signals, more confidence; contact details given by the visitor are the surest.
  const kinds = new Set(signals).size + (sentiment !== 'neutral' ? 1 : 0);
  const confidence = Math.round(Math.min(0.95, 0.2 + 0.1 * kinds + (hasContact ? 0.15 : 0)) * 100) / 100;

  const parts = [`${INTENT_LABELS[category]} (score ${score}, ${band})`];
  const terms = [...new Set(buying.flatMap((c) => perCategory.get(c) ?? []))].slice(0, 4);
  if (terms.length) parts.push(`signals: ${terms.join(', ')}`);
  if (urgency.length) parts.push('urgent');
  const contact = [email && 'email', phone && 'phone', name && 'name'].filter(Boolean);
  if (contact.length) parts.push(`left ${contact.join(', ')}`);
  if (company) parts.push(`company ${company}`);
  const last = userMessages[userMessages.length - 1];
  let summary = parts.join('; ');
  if (last) summary += `. Last message: "${oneLine(last, 120)}"`;

  return {
    score,
    band,
    category,
    summary: oneLine(summary, 300),
    sentiment,
    qualification,
    confidence,
    name,
    email,
    phone,
    company,
    capturedVia,
    isLead,
    signals: [...new Set(signals)],
  };
}
