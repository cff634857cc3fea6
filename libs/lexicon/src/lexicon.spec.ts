import { arabicRoots, carriesLinker, englishGlossWords, englishHypernyms, MAX_POLYSEMY, isStopword, stemVariants, baseForms, candidateLanguages, contentStems, detectLexiconLanguage, documentLexemes, englishSynonyms, lexiconLanguage, parseTextMatch, queryLexemes, stem } from './index';

describe('lexicon', () => {
  it('maps language codes to the lexicon languages (Filipino is tl)', () => {
    expect(lexiconLanguage('en-IN')).toBe('en');
    expect(lexiconLanguage('fil-PH')).toBe('tl');
    expect(lexiconLanguage('vi-VN')).toBeNull();
    expect(lexiconLanguage(null)).toBeNull();
  });

  it('stems "located" and "Location" alike, and Indonesian affixes away', () => {
    expect(stem('located', 'en')).toBe(stem('location', 'en'));
    expect(stem('pembayaran', 'id')).toBe(stem('membayar', 'id'));
    expect(stem('penghantaran', 'ms')).toBe(stem('dihantar', 'ms'));
  });

  it('finds English synonyms in WordNet: guarantee ≈ warranty, shop ≈ store', () => {
    expect(englishSynonyms('guarantee')).toContain('warranty');
    expect(englishSynonyms('shop')).toContain('store');
    expect(englishSynonyms('located')).toContain('situated');
    expect(englishSynonyms('qwertyuiop')).toEqual([]);
    expect(baseForms('located')).toContainEqual({ pos: 'verb', lemma: 'locate' });
  });

  it('detects a document language by script, and Latin ones with tinyld', () => {
    expect(detectLexiconLanguage('Our store is situated at 12 Harbour Road, opposite the bus station.')).toBe('en');
    expect(detectLexiconLanguage('当店は東京都渋谷区にあります。')).toBe('ja');
    expect(detectLexiconLanguage('يقع متجرنا في دبي')).toBe('ar');
    expect(detectLexiconLanguage('商店在哪里')).toBeNull();
    expect(candidateLanguages('Where is the shop?')).toEqual(['en', 'id', 'ms', 'tl']);
    expect(candidateLanguages('Where is the shop?', 'fil-PH')[0]).toBe('tl');
  });

  it('indexes a chunk with the PostgreSQL configuration of its language, or stems made here', () => {
    expect(documentLexemes('Our store is situated at 12 Harbour Road.')).toEqual({ language: 'en', pgConfig: 'english', extra: '' });
    const ms = documentLexemes('Penghantaran percuma untuk pembelian melebihi RM150.', 'ms-MY');
    expect(ms.language).toBe('ms');
    expect(ms.pgConfig).toBe('simple');
    expect(ms.extra.split(' ')).toContain('hantar');
    expect(contentStems('店舗はどこにありますか', 'ja')).toContain('店舗');
  });

  it('adds English synonyms to the query for the english configuration only', () => {
    const q = queryLexemes('Is there a guarantee?');
    expect(q.synonyms).toContain('warranty');
    expect(q.pg.find((p) => p.config === 'english')?.text).toContain('warranty');
    expect(q.pg.find((p) => p.config === 'indonesian')?.text).toBe('Is there a guarantee?');
  });

  it('parses TEXT_MATCH', () => {
    expect(parseTextMatch(undefined)).toBe('stems');
    expect(parseTextMatch('Surface')).toBe('surface');
    expect(() => parseTextMatch('fuzzy')).toThrow(/TEXT_MATCH/);
  });

  it('has stop words per language (@nlpjs/lang-*, else stopwords-iso; Arabic folded)', () => {
    expect(isStopword('the', 'en')).toBe(true);
    expect(isStopword('warranty', 'en')).toBe(false);
    expect(isStopword('yang', 'id')).toBe(true);
    expect(isStopword('ang', 'tl')).toBe(true);
    expect(isStopword('متي', 'ar')).toBe(true);
  });

  it("adds WordNet's derivationally related forms: pay ≈ payment", () => {
    expect(englishSynonyms('pay')).toContain('payment');
  });

  it('recodes Indonesian/Malay meN- prefixes and strips Arabic imperfect prefixes as stem alternatives', () => {
    expect(stemVariants('menutup', 'id')).toContain(stem('tutup', 'id'));
    expect(stemVariants('pengiriman', 'ms')).toContain(stem('kirim', 'ms'));
    expect(stemVariants('يفتح', 'ar')).toContain('فتح');
    expect(stemVariants('نفتح', 'ar')).toContain('فتح');
    expect(stemVariants('located', 'en')).toEqual([stem('located', 'en')]);
  });
});

describe('lexicon: stem alternatives and definitions (issue 33, second pass)', () => {
  it('removes Indonesian/Malay clitics (-nya, -ku, -lah …) as an alternative, when four letters remain', () => {
    expect(stemVariants('struknya', 'id')).toContain('struk');
    expect(stemVariants('wangnya', 'ms')).toContain('wang');
    expect(stemVariants('buku', 'id')).toEqual([stem('buku', 'id')]);
  });

  it('keeps the meN- recoded word itself: menerima ≈ diterima (terima)', () => {
    expect(stemVariants('menerima', 'id')).toContain('terima');
    expect(stemVariants('diterima', 'id')).toContain('terima');
  });

  it('follows the Tamil stemmer to its fixed point: பொருளை and பொருள் meet', () => {
    const a = stemVariants('பொருளை', 'ta');
    const b = stemVariants('பொருள்', 'ta');
    expect(a.some((s) => b.includes(s))).toBe(true);
  });

  it('adds Arabic roots: a broken plural meets its singular (متاجر / متجر, عيوب / عيب)', () => {
    expect(arabicRoots('متاجر')).toContain('تجر');
    expect(arabicRoots('متجر')).toContain('تجر');
    const plural = stemVariants('عيوب', 'ar');
    expect(stemVariants('عيب', 'ar').some((s) => plural.includes(s))).toBe(true);
  });

  it("reads WordNet's definitions: refund is defined with money, appliance with device", () => {
    expect(englishGlossWords('refunds')).toContain('money');
    expect(englishGlossWords('appliance')).toContain('device');
    expect(englishGlossWords('qwertyuiop')).toEqual([]);
  });
});

describe('lexicon: WordNet hypernyms and polysemy (issue 33, third pass)', () => {
  it('reads the direct hypernyms of nouns: a delivery is a kind of transport, a refund of a payment', () => {
    expect(englishHypernyms('delivery')).toContain('transport');
    expect(englishHypernyms('refunds')).toContain('payment');
    // Nouns only: verb hypernyms are too general ("leave" → "get").
    expect(englishHypernyms('leave')).not.toContain('get');
    expect(englishHypernyms('qwertyuiop')).toEqual([]);
  });

  it(`gives a word of more than ${MAX_POLYSEMY} senses no synonyms, hypernyms or definitions ("take" has 44)`, () => {
    expect(englishSynonyms('take')).toEqual([]);
    expect(englishGlossWords('take')).toEqual([]);
    expect(englishSynonyms('guarantee')).toContain('warranty');
  });
});

describe('hostile words (found by the REST fuzzer: a stemmer that throws broke the answer)', () => {
  // arabic-stem throws a TypeError on this word; nothing a visitor or a document writes may break an answer.
  const WORD = 'إالٱّالّأzإّةّيـ-إz';

  it('never throw: a word a stemmer cannot take is its own stem', () => {
    expect(arabicRoots(WORD)).toEqual([]);
    expect(() => stemVariants(WORD, 'ar')).not.toThrow();
    expect(stemVariants(WORD, 'ar')).toContain(stem(WORD, 'ar'));
    for (const lang of ['en', 'id', 'ms', 'tl', 'hi', 'ar', 'ta', 'ja'] as const) {
      for (const w of [WORD, '😀日', 'ـــ', '\u0651\u0651', 'a'.repeat(500)]) expect(() => stemVariants(w, lang)).not.toThrow();
    }
  });
});

describe('lexicon: the Tagalog linker (issue 33, fourth pass)', () => {
  it('reads a Filipino stop word carrying the linker -ng / -g as the stop word: ilang (ilan), nasaang (nasaan), anong (ano)', () => {
    for (const w of ['ilang', 'nasaang', 'anong', 'sinong']) expect(isStopword(w, 'tl')).toBe(true);
    // A content word with the linker stays content ("tindahang" is tindahan + -g), and other languages have no linker.
    expect(isStopword('tindahang', 'tl')).toBe(false);
    expect(isStopword('bakanteng', 'tl')).toBe(false);
    expect(isStopword('anong', 'id')).toBe(false);
    // The stems written for PostgreSQL (Filipino has no configuration) leave them out too.
    expect(contentStems('Ilang araw bago dumating ang order?', 'tl')).not.toContain(stem('ilang', 'tl'));
  });
});

describe('lexicon: a Filipino word carrying the linker (issue 33, fifth pass)', () => {
  it('reads a word of five letters or more ending in a vowel and -ng as linked, in Filipino only', () => {
    expect(carriesLinker('bakanteng', 'tl')).toBe(true);
    expect(carriesLinker('libreng', 'tl')).toBe(true);
    expect(carriesLinker('bang', 'tl')).toBe(false); // too short: ba + -ng is a stop word anyway
    expect(carriesLinker('trabaho', 'tl')).toBe(false);
    expect(carriesLinker('bakanteng', 'id')).toBe(false);
  });
});
