import { bandOf, findCompany, findEmail, findName, findPhone, findQualification, scoreSession } from './lead-scorer';

describe('scoreSession', () => {
  it('a buyer leaving e-mail and phone is a hot conversational lead with parsed contact details', () => {
    const r = scoreSession(['I want to buy the premium plan for my company, my email is jane@acme.io, call me at +44 20 7946 0958']);
    expect(r).toEqual(
      expect.objectContaining({
        isLead: true,
        capturedVia: 'conversational',
        band: 'hot',
        category: 'purchase',
        email: 'jane@acme.io',
        phone: '+442079460958',
        company: 'Acme',
        name: null,
      }),
    );
    expect(r.score).toBeGreaterThanOrEqual(70);
    expect(r.confidence).toBeGreaterThan(0.5);
    expect(r.confidence).toBeLessThanOrEqual(1);
    expect(r.summary).toContain('Purchase intent');
    expect(r.summary).toContain('Last message: "I want to buy');
    expect(r.summary).not.toContain('\n');
  });

  it('small talk is not a lead', () => {
    for (const msgs of [['Hello!', 'How are you?', 'Nice weather'], ['こんにちは'], ['Habari yako?'], ['Thanks, bye']]) {
      const r = scoreSession(msgs);
      expect(r.isLead).toBe(false);
      expect(r.capturedVia).toBe('inferred');
      expect(r.band).toBe('cold');
      expect(r.category).toBe('general');
    }
  });

  it('signals only: a lead (inferred) when the score reaches warm, none below', () => {
    const warm = scoreSession(['How much does the premium plan cost?', 'I want to buy it and book a demo today', 'Our budget is $5000']);
    expect(warm).toEqual(expect.objectContaining({ isLead: true, capturedVia: 'inferred', email: null, phone: null }));
    expect(['warm', 'hot']).toContain(warm.band);
    expect(warm.qualification).toEqual({ budget: '$5000', timeline: 'today' });
    const cold = scoreSession(['How much is it?']);
    expect(cold).toEqual(expect.objectContaining({ isLead: false, capturedVia: 'inferred', category: 'pricing', band: 'cold' }));
  });

  it('contact details alone make a conversational lead even with a low score', () => {
    const r = scoreSession(['my email is bob@gmail.com']);
    expect(r).toEqual(expect.objectContaining({ isLead: true, capturedVia: 'conversational', band: 'cold', company: null, email: 'bob@gmail.com' }));
  });

  it('thresholds are configurable', () => {
    const msgs = ['How much does the premium plan cost? I want to buy it today'];
    const base = scoreSession(msgs);
    expect(scoreSession(msgs, { hot: base.score, warm: 10 }).band).toBe('hot');
    expect(scoreSession(msgs, { hot: 100, warm: 100 })).toEqual(expect.objectContaining({ band: 'cold', isLead: false }));
    expect(bandOf(70)).toBe('hot');
    expect(bandOf(69)).toBe('warm');
    expect(bandOf(40)).toBe('warm');
    expect(bandOf(39)).toBe('cold');
  });

  it.each([
    ['ja', ['私は田中です。プレミアムプランを購入したいです。価格はいくらですか？', 'メールは tanaka@example.co.jp です'], 'purchase', '田中'],
    ['ko', ['제 이름은 김민수입니다. 가격이 얼마예요? 구매하고 싶어요', '전화 010-1234-5678'], 'purchase', '김민수'],
    ['zh', ['我叫王伟，我想购买高级版，多少钱？', '我的电话是 13812345678'], 'purchase', '王伟'],
    ['id', ['Nama saya Budi, berapa harga paket premium? Saya mau beli hari ini', 'email saya budi@tokomaju.co.id'], 'purchase', 'Budi'],
    ['ms', ['Nama saya Aisyah. Saya nak beli pakej ini, nombor saya 012-345 6789'], 'purchase', 'Aisyah'],
    ['th', ['ผมชื่อสมชายครับ อยากซื้อแพ็กเกจ ราคาเท่าไหร่', 'เบอร์ 081-234-5678'], 'purchase', 'สมชาย'],
    ['vi', ['Tên tôi là Nguyễn An, tôi muốn mua gói cao cấp, giá bao nhiêu?', 'email an@congty.vn'], 'purchase', 'Nguyễn An'],
    ['fil', ['Ako si Maria, magkano ang presyo? Gusto kong bumili', 'maria@negosyo.ph'], 'purchase', 'Maria'],
    ['ar', ['اسمي أحمد، أريد شراء الباقة، ما هو السعر؟', 'هاتفي +971 50 123 4567'], 'purchase', 'أحمد'],
    ['hi', ['मेरा नाम राहुल है, मुझे प्रीमियम प्लान खरीदना है, कीमत क्या है?', 'फोन 98765 43210'], 'purchase', 'राहुल'],
    ['ta', ['என் பெயர் முருகன். இந்த திட்டத்தை வாங்க விரும்புகிறேன், விலை என்ன?', 'murugan@kadai.in'], 'purchase', 'முருகன்'],
    ['sw', ['Jina langu ni Amani, nataka kununua mpango huu, bei gani?', 'simu yangu 0712 345 678'], 'purchase', 'Amani'],
    ['ha', ['Sunana Musa, ina son sayi wannan tsari, nawa ne farashi?', 'musa@kamfani.ng'], 'purchase', 'Musa'],
    ['yo', ['Orúkọ mi ni Tunde, mo fẹ́ ra ètò yìí, elo ni owó rẹ̀?', 'tunde@ile-ise.ng'], 'purchase', 'Tunde'],
    ['fr', ["Je m'appelle Claire, je voudrais acheter l'abonnement, quel est le prix ?", 'claire@societe.fr'], 'purchase', 'Claire'],
    ['es', ['Me llamo Lucía, quiero comprar el plan, ¿cuánto cuesta?', 'lucia@empresa.es'], 'purchase', 'Lucía'],
  ])('%s: contact details, name and buying signals', (_lang, msgs, category, name) => {
    const r = scoreSession(msgs);
    expect(r).toEqual(expect.objectContaining({ isLead: true, capturedVia: 'conversational', category, name }));
    expect(r.email ?? r.phone).toBeTruthy();
    expect(['hot', 'warm']).toContain(r.band);
  });

  it('a complaint is negative and categorised as a complaint', () => {
    const r = scoreSession(['This is terrible, the heater is broken and I want a refund']);
    expect(r).toEqual(expect.objectContaining({ category: 'complaint', sentiment: 'negative', isLead: false }));
  });

  it('a support question is categorised as support', () => {
    expect(scoreSession(['My login does not work, can you help me?']).category).toBe('support');
  });

  it('positive sentiment', () => {
    expect(scoreSession(['Thanks, that is great!']).sentiment).toBe('positive');
    expect(scoreSession(['What are your opening hours?']).sentiment).toBe('neutral');
  });

  it('booking intent', () => {
    const r = scoreSession(['Can I book a demo next week? I am Jane from Globex Corp, jane@globex.com']);
    expect(r).toEqual(expect.objectContaining({ category: 'booking', name: 'Jane', company: 'Globex Corp', capturedVia: 'conversational' }));
    expect(r.qualification).toEqual({ timeline: 'next week' });
  });
});

describe('extractors', () => {
  it('e-mails', () => {
    expect(findEmail('write to Jane.Doe+x@Example.co.uk.')).toBe('jane.doe+x@example.co.uk');
    expect(findEmail('no address here @ all')).toBeNull();
  });

  it('phones: international, local, after a cue; not prices or years', () => {
    const p = (t: string) => findPhone(t, t.toLowerCase());
    expect(p('+1 (415) 555-2671')).toBe('+14155552671');
    expect(p('0044 20 7946 0958')).toBe('+442079460958');
    expect(p('ring 020 7946 0958')).toBe('02079460958');
    expect(p('電話は090-1234-5678です')).toBe('09012345678');
    expect(p('phone 5551234567')).toBe('5551234567');
    expect(p('It costs 900 dollars in 2024')).toBeNull();
    expect(p('order 12345678')).toBeNull();
  });

  it('names', () => {
    expect(findName("Hi, I'm Jane Doe and I need a quote")).toBe('Jane Doe');
    expect(findName('I am interested in the plan')).toBeNull();
    expect(findName('my name is john')).toBe('john');
    expect(findName('私は佐藤と申します')).toBe('佐藤');
  });

  it('companies: after from/at, else a non-free e-mail domain', () => {
    expect(findCompany('I work for Initech', null)).toBe('Initech');
    expect(findCompany('call me at +44 20', 'a@acme.io')).toBe('Acme');
    expect(findCompany('hello', 'a@gmail.com')).toBeNull();
    expect(findCompany('hello', 'a@mail.bigcorp.co.uk')).toBe('Bigcorp');
  });

  it('qualification answers', () => {
    expect(findQualification('Our budget is 10k, we are 50 employees and need it within 2 weeks')).toEqual({ budget: '10k', company_size: '50 employees', timeline: 'within 2 weeks' });
    expect(findQualification('予算は50万円です')).toEqual({ budget: '50万円です' });
  });
});

describe('scoreSession with known details (identify, lead form, the stored lead)', () => {
  it('known contact details score like found ones but do not make the lead conversational', () => {
    const plain = scoreSession(['How much is the premium plan?']);
    const r = scoreSession(['How much is the premium plan?'], undefined, { email: 'kim@acme.io', name: 'Kim' });
    expect(r.score).toBe(plain.score + 25 + 10 + 5);
    expect(r).toEqual(expect.objectContaining({ email: 'kim@acme.io', name: 'Kim', company: 'Acme', capturedVia: 'inferred', isLead: true }));
  });

  it('details found in the messages win over known ones', () => {
    const r = scoreSession(['mail me at new@globex.com'], undefined, { email: 'old@acme.io', company: 'Acme', qualification: { budget: '1k' } });
    expect(r).toEqual(expect.objectContaining({ email: 'new@globex.com', company: 'Acme', capturedVia: 'conversational', qualification: { budget: '1k' } }));
  });

  it('no messages: scored from the known details alone', () => {
    const r = scoreSession([], undefined, { phone: '+442079460958' });
    expect(r).toEqual(expect.objectContaining({ score: 20, band: 'cold', category: 'general', capturedVia: 'inferred', isLead: true }));
    expect(r.summary).not.toContain('Last message');
  });
});
