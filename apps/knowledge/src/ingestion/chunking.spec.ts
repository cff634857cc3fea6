import { chunkText } from './chunking';

const JA = '返品と返金について説明します。商品到着後30日以内であれば、未使用の商品は全額返金いたします。返金は元のお支払い方法に5営業日以内に戻ります。';
const TH = 'นโยบายการคืนเงิน หากสินค้ายังไม่ได้ใช้งาน คุณสามารถขอคืนเงินเต็มจำนวนภายใน 30 วันหลังได้รับสินค้า เงินจะคืนเข้าบัตรเครดิตภายใน 5 วันทำการ ';
const AR = 'يمكنك استرداد المبلغ كاملاً خلال ثلاثين يوماً من استلام المنتج. هل يمكنني إرجاع منتج مستعمل؟ لا، للأسف. ';
const HI = 'यदि उत्पाद का उपयोग नहीं किया गया है तो आप तीस दिनों के भीतर पूरी धनवापसी प्राप्त कर सकते हैं। पैसा पाँच दिनों में वापस आ जाएगा। ';
const EN = 'Refunds go back to the original payment method within 5 business days. Version 2.5 of the app is at example.com/app?x=1 now! ';
const ZH = '如果忘记密码，请在登录页面点击重置密码。然后输入您注册的电子邮箱！';

describe('chunkText', () => {
  it('numbers chunks in order and keeps a short text whole', async () => {
    expect(await chunkText('  Hello world.  ')).toEqual([{ ordinal: 0, text: 'Hello world.' }]);
    expect(await chunkText('')).toEqual([]);
    expect(await chunkText(' \n\n \n')).toEqual([]);
  });

  it('splits Japanese at 。 with each chunk ending its sentence', async () => {
    const text = JA.repeat(20); // one long paragraph, no spaces at all
    const chunks = await chunkText(text, { chunkSize: 200, chunkOverlap: 0 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(200);
      expect(c.text.endsWith('。')).toBe(true);
      expect(c.text.startsWith('。')).toBe(false);
    }
    expect(chunks.map((c) => c.text).join('')).toBe(text);
  });

  it('splits Chinese at ！ and 。, Thai at spaces, Arabic at ؟ and Hindi at ।', async () => {
    const zh = await chunkText(ZH.repeat(10), { chunkSize: 40, chunkOverlap: 0 });
    expect(zh.every((c) => /[。！]$/.test(c.text))).toBe(true);
    const th = await chunkText(TH.repeat(10), { chunkSize: 120, chunkOverlap: 0 });
    expect(th.every((c) => c.text.length <= 120 && !/\s$/.test(c.text))).toBe(true);
    expect(th.map((c) => c.text).join(' ')).toBe(TH.repeat(10).trim());
    const ar = await chunkText(AR.repeat(10), { chunkSize: 100, chunkOverlap: 0 });
    expect(ar.every((c) => /[.؟]$/.test(c.text))).toBe(true);
    const hi = await chunkText(HI.repeat(10), { chunkSize: 150, chunkOverlap: 0 });
    expect(hi.every((c) => c.text.endsWith('।'))).toBe(true);
  });

  it('does not take decimals, domains or query strings for sentence ends', async () => {
    const chunks = await chunkText(EN.repeat(5), { chunkSize: 130, chunkOverlap: 0 });
    expect(chunks.map((c) => c.text)).toContain('Version 2.5 of the app is at example.com/app?x=1 now!');
  });

  it('prefers paragraph breaks', async () => {
    const paragraphs = Array.from({ length: 12 }, (_, i) => `Paragraph ${i}. ${'Some words here. '.repeat(10).trim()}`);
    const chunks = await chunkText(paragraphs.join('\n\n'), { chunkSize: 400, chunkOverlap: 150 });
    // Two whole paragraphs (366 characters) per chunk; a paragraph is longer than the overlap, so none repeats.
    expect(chunks.map((c) => c.text)).toEqual(Array.from({ length: 6 }, (_, i) => `${paragraphs[2 * i]}\n\n${paragraphs[2 * i + 1]}`));
  });

  it('repeats whole sentences, up to chunkOverlap characters, at the start of the next chunk', async () => {
    const sentences = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} is here.`);
    const chunks = await chunkText(sentences.join(' '), { chunkSize: 200, chunkOverlap: 60 });
    for (let i = 1; i < chunks.length; i++) {
      const first = /^Sentence number \d+ is here\./.exec(chunks[i].text)![0];
      expect(chunks[i - 1].text).toContain(first);
    }
    expect(chunks.every((c) => c.text.length <= 200 && c.text.endsWith('is here.'))).toBe(true);
  });

  it('never cuts a surrogate pair when it has to cut inside a word', async () => {
    const chunks = await chunkText('😀'.repeat(500), { chunkSize: 99, chunkOverlap: 0 });
    for (const c of chunks) expect(c.text).toMatch(/^(?:😀)+$/);
  });

  it('chunks a 200,000-character mixed-language document fast, within the size limit', async () => {
    // Paragraphs of ~3,000 characters, so most have to be split further, at sentences and words.
    const paragraph = [JA, TH, AR, HI, EN, ZH].join('').repeat(5);
    const doc = Array.from({ length: Math.ceil(200_000 / (paragraph.length + 2)) }, () => paragraph).join('\n\n').slice(0, 200_000);
    const started = performance.now();
    const chunks = await chunkText(doc);
    const elapsed = performance.now() - started;
    expect(chunks.length).toBeGreaterThan(200);
    expect(chunks.every((c) => c.text.length > 0 && c.text.length <= 1000)).toBe(true);
    expect(chunks.map((c) => c.ordinal)).toEqual(chunks.map((_, i) => i));
    expect(elapsed).toBeLessThan(1000); // typically tens of ms
  });
});
