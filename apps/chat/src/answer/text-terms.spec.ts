import { matchedTerms, TermLexicon, termsOf, termStrength, WEAK_STRENGTH } from './text-terms';

describe('text terms, TEXT_MATCH=stems rules (issue 33)', () => {
  it('Japanese: a lone Han character is a term, matched inside the pairs of the other side (店 in 当店)', () => {
    expect(termsOf('お店はどこですか', true)).toContain('店');
    expect(termsOf('お店はどこですか')).not.toContain('店'); // surface mode unchanged
    const lexicon = new TermLexicon('ja');
    expect(matchedTerms(['店'], termsOf('当店は渋谷にあります', true), lexicon)).toEqual(['店']);
  });

  it('Japanese: a one-character question word cuts a run (何時 is no topic)', () => {
    expect(termsOf('何時から営業していますか', true)).not.toContain('何時');
    expect(termsOf('何時から営業していますか', true)).toContain('営業');
    expect(termsOf('何時から営業していますか')).toContain('何時');
  });

  it('Tamil: a three-code-point shared prefix is the same word in stems mode (மூடும் / மூடப்படும்)', () => {
    const lexicon = new TermLexicon('ta');
    expect(matchedTerms(['மூடும்'], ['மூடப்படும்'], lexicon)).toEqual(['மூடும்']);
    expect(matchedTerms(['மூடும்'], ['மூடப்படும்'])).toEqual([]);
  });

  it("English: a passage word whose WordNet definition uses the question's word matches it (money → refunds)", () => {
    const lexicon = new TermLexicon('en');
    expect(matchedTerms(['money'], ['refunds'], lexicon)).toEqual(['money']);
    // One way only: the question word's own definition does not count.
    expect(matchedTerms(['refunds'], ['money'], lexicon)).toEqual([]);
  });

  it('English: a passage word that names a kind of the question word matches fully; two steps away, half', () => {
    const lexicon = new TermLexicon('en');
    // delivery → hypernym transport: "Is transport free?" / "Delivery is free".
    expect(termStrength('transport', ['delivery'], lexicon)).toBe(1);
    // shipping ≈ transport (synonym), delivery → transport (hypernym): two steps.
    expect(termStrength('shipping', ['delivery'], lexicon)).toBe(WEAK_STRENGTH);
    // harbour: "a sheltered port where ships can take on or discharge cargo": a definition only.
    expect(termStrength('ship', ['harbour'], lexicon)).toBe(WEAK_STRENGTH);
    // A direct match is the strongest of the candidates.
    expect(termStrength('ship', ['harbour', 'shipping'], lexicon)).toBe(1);
    // Not the other way: the question's word is the kind, the passage's the general one.
    expect(termStrength('delivery', ['transport'], lexicon)).toBe(0);
  });
});
