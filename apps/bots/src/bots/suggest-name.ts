import { charLength } from '@sa/contracts';

/** Drops characters from the end (by code point) until the text fits `max` characters. */
function truncate(text: string, max: number): string {
  return charLength(text) <= max ? text : [...text].slice(0, max).join('').trimEnd();
}

/**
 * A free name close to the one asked for: "Support" → "Support 2", "Support 3", …, trimmed so the
 * suffix still fits the 30-character limit. `taken` holds lower-cased names already used.
 */
export function suggestName(name: string, taken: Set<string>, max = 30): string {
  const base = name.trim().replace(/\s+\d+$/, '') || name.trim();
  for (let n = 2; n < 10_000; n++) {
    const suffix = ` ${n}`;
    const candidate = truncate(base, max - suffix.length) + suffix;
    if (!taken.has(candidate.toLowerCase())) return candidate;
  }
  const stamp = ` ${Date.now().toString(36)}`;
  return truncate(base, max - stamp.length) + stamp;
}
