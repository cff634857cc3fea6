import { HashingEmbeddings } from './hashing-embeddings';

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);
const norm = (a: number[]) => Math.sqrt(dot(a, a));

/** Three help-centre passages per language (refund, shipping, password); all are distractors for every query. */
const passages: Record<string, { refund: string; shipping: string; password: string }> = {
  en: {
    refund: 'Refund policy: unused items can be returned within 30 days of delivery for a full refund. The money goes back to your card within 5 business days.',
    shipping: 'Shipping: orders usually ship within 2 to 3 days. Delivery to islands may cost extra.',
    password: 'If you forgot your password, click Reset password on the login page and enter your registered email address.',
  },
  ja: {
    refund: '返品と返金について：商品到着後30日以内であれば、未使用の商品は全額返金いたします。返金は元のお支払い方法に5営業日以内に戻ります。',
    shipping: '配送について：ご注文は通常2〜3日で発送されます。離島への配送には追加料金がかかる場合があります。',
    password: 'パスワードを忘れた場合は、ログイン画面の「パスワードを再設定」をクリックし、登録済みのメールアドレスを入力してください。',
  },
  zh: {
    refund: '退款政策：商品未使用的，可在收货后三十天内申请全额退款，款项将在五个工作日内退回原支付方式。',
    shipping: '配送说明：订单通常在两到三天内发货，偏远岛屿的配送可能收取额外费用。',
    password: '如果忘记密码，请在登录页面点击“重置密码”，然后输入您注册的电子邮箱。',
  },
  ko: {
    refund: '환불 정책: 사용하지 않은 상품은 수령 후 30일 이내에 전액 환불받을 수 있습니다. 환불 금액은 영업일 기준 5일 이내에 카드로 돌아갑니다.',
    shipping: '배송 안내: 주문은 보통 2~3일 이내에 발송됩니다. 도서 지역 배송은 추가 요금이 부과될 수 있습니다.',
    password: '비밀번호를 잊으셨다면 로그인 화면에서 비밀번호 재설정을 누르고 가입한 이메일 주소를 입력하세요.',
  },
  th: {
    refund: 'นโยบายการคืนเงิน: หากสินค้ายังไม่ได้ใช้งาน คุณสามารถขอคืนเงินเต็มจำนวนภายใน 30 วันหลังได้รับสินค้า เงินจะคืนเข้าบัตรเครดิตภายใน 5 วันทำการ',
    shipping: 'การจัดส่งสินค้า: คำสั่งซื้อจะถูกจัดส่งภายใน 2 ถึง 3 วัน การจัดส่งไปยังเกาะอาจมีค่าใช้จ่ายเพิ่มเติม',
    password: 'หากคุณลืมรหัสผ่าน ให้คลิก รีเซ็ตรหัสผ่าน ที่หน้าเข้าสู่ระบบ แล้วกรอกอีเมลที่ลงทะเบียนไว้',
  },
  ar: {
    refund: 'سياسة الاسترداد: يمكنك استرداد المبلغ كاملاً خلال ثلاثين يوماً من استلام المنتج إذا لم يتم استخدامه. يعود المبلغ إلى بطاقتك خلال خمسة أيام عمل.',
    shipping: 'الشحن والتوصيل: يتم شحن الطلبات عادةً خلال يومين إلى ثلاثة أيام. قد تُفرض رسوم إضافية على التوصيل إلى الجزر.',
    password: 'إذا نسيت كلمة المرور، انقر على إعادة تعيين كلمة المرور في صفحة تسجيل الدخول وأدخل بريدك الإلكتروني المسجل.',
  },
  hi: {
    refund: 'धनवापसी नीति: यदि उत्पाद का उपयोग नहीं किया गया है तो आप तीस दिनों के भीतर पूरी धनवापसी प्राप्त कर सकते हैं। पैसा पाँच कार्य दिवसों में आपके कार्ड में वापस आ जाएगा।',
    shipping: 'शिपिंग और डिलीवरी: ऑर्डर आमतौर पर दो से तीन दिनों में भेजे जाते हैं। द्वीपों पर डिलीवरी के लिए अतिरिक्त शुल्क लग सकता है।',
    password: 'यदि आप अपना पासवर्ड भूल गए हैं, तो लॉगिन पेज पर पासवर्ड रीसेट करें पर क्लिक करें और अपना पंजीकृत ईमेल दर्ज करें।',
  },
  vi: {
    refund: 'Chính sách hoàn tiền: sản phẩm chưa sử dụng có thể được hoàn tiền toàn bộ trong vòng 30 ngày kể từ khi nhận hàng.',
    shipping: 'Giao hàng: đơn hàng thường được gửi đi trong vòng 2 đến 3 ngày. Giao hàng ra đảo có thể tốn thêm phí.',
    password: 'Nếu bạn quên mật khẩu, hãy nhấn Đặt lại mật khẩu trên trang đăng nhập và nhập email đã đăng ký.',
  },
  id: {
    refund: 'Kebijakan pengembalian dana: barang yang belum dipakai dapat dikembalikan dalam 30 hari untuk pengembalian dana penuh.',
    shipping: 'Pengiriman: pesanan biasanya dikirim dalam 2 sampai 3 hari. Pengiriman ke pulau terpencil mungkin dikenakan biaya tambahan.',
    password: 'Jika Anda lupa kata sandi, klik Atur ulang kata sandi di halaman masuk lalu masukkan email terdaftar Anda.',
  },
  ta: {
    refund: 'பணத்தைத் திரும்பப் பெறும் கொள்கை: பயன்படுத்தாத பொருட்களுக்கு 30 நாட்களுக்குள் முழு பணம் திரும்ப வழங்கப்படும்.',
    shipping: 'விநியோகம்: ஆர்டர்கள் வழக்கமாக 2 முதல் 3 நாட்களில் அனுப்பப்படும். தீவுகளுக்கு விநியோகத்திற்கு கூடுதல் கட்டணம் இருக்கலாம்.',
    password: 'உங்கள் கடவுச்சொல்லை மறந்துவிட்டால், உள்நுழைவு பக்கத்தில் கடவுச்சொல்லை மீட்டமை என்பதைக் கிளிக் செய்யவும்.',
  },
  sw: {
    refund: 'Sera ya kurejesha pesa: bidhaa ambazo hazijatumika zinaweza kurudishwa ndani ya siku 30 ili urejeshewe pesa zote.',
    shipping: 'Usafirishaji: maagizo kwa kawaida husafirishwa ndani ya siku 2 hadi 3. Usafirishaji kwenda visiwani unaweza kuwa na gharama ya ziada.',
    password: 'Ikiwa umesahau nenosiri lako, bofya Weka upya nenosiri kwenye ukurasa wa kuingia kisha weka barua pepe yako.',
  },
};

const queries: [lang: string, query: string, topic: 'refund' | 'shipping' | 'password'][] = [
  ['en', 'how do I get a refund for an unused item', 'refund'],
  ['ja', '返金はいつ戻りますか', 'refund'],
  ['ja', 'パスワードの再設定方法', 'password'],
  ['zh', '忘记密码怎么办', 'password'],
  ['ko', '배송은 며칠 걸리나요', 'shipping'],
  ['th', 'ขอคืนเงินได้ภายในกี่วัน', 'refund'],
  ['th', 'ค่าจัดส่งไปเกาะ', 'shipping'],
  ['ar', 'كيف أعيد تعيين كلمة المرور؟', 'password'],
  ['ar', 'متى يعود المبلغ إلى بطاقتي', 'refund'],
  ['hi', 'डिलीवरी में कितने दिन लगते हैं', 'shipping'],
  ['hi', 'मैं अपना पासवर्ड भूल गया', 'password'],
  ['vi', 'tôi quên mật khẩu', 'password'],
  ['id', 'berapa lama pengiriman pesanan saya', 'shipping'],
  ['ta', 'கடவுச்சொல்லை மறந்துவிட்டேன்', 'password'],
  ['sw', 'nimesahau nenosiri', 'password'],
];

describe('HashingEmbeddings', () => {
  const embedder = new HashingEmbeddings();
  const corpus = Object.entries(passages).flatMap(([lang, p]) => Object.entries(p).map(([topic, text]) => ({ key: `${lang}/${topic}`, text })));
  let vectors: number[][];

  beforeAll(async () => {
    vectors = await embedder.embedDocuments(corpus.map((c) => c.text));
  });

  it('names itself after the embedder, version and dimension', () => {
    expect(embedder.id).toBe('hashing-v1-384');
    expect(new HashingEmbeddings({ dimensions: 1024 }).id).toBe('hashing-v1-1024');
  });

  it.each(queries)('ranks the %s passage sharing the words of "%s" first', async (lang, query, topic) => {
    const q = await embedder.embedQuery(query);
    const ranked = corpus.map((c, i) => ({ key: c.key, score: dot(q, vectors[i]) })).sort((a, b) => b.score - a.score);
    expect(ranked[0].key).toBe(`${lang}/${topic}`);
    // A clear margin, not a coin toss among near-equal scores.
    expect(ranked[0].score - ranked[1].score).toBeGreaterThan(0.02);
  });

  it('returns unit-length vectors of the configured dimension', async () => {
    for (const v of vectors) {
      expect(v).toHaveLength(384);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    expect(await new HashingEmbeddings({ dimensions: 64 }).embedQuery('hello')).toHaveLength(64);
  });

  it('is deterministic across instances and calls', async () => {
    const text = passages['ja'].refund;
    expect(await new HashingEmbeddings().embedQuery(text)).toEqual(await embedder.embedQuery(text));
    expect(await embedder.embedDocuments([text, text])).toEqual([vectors[3], vectors[3]]);
  });

  it('gives a zero vector, not NaN, for empty and punctuation-only text', async () => {
    for (const text of ['', '   \n', '!!! ... ???', '。、！']) {
      const v = await embedder.embedQuery(text);
      expect(v).toHaveLength(384);
      expect(v.every((x) => x === 0)).toBe(true);
    }
  });

  it('ignores case, width, whitespace and Arabic diacritics', async () => {
    const same = async (a: string, b: string) => expect(dot(await embedder.embedQuery(a), await embedder.embedQuery(b))).toBeCloseTo(1, 5);
    await same('Reset  your\nPASSWORD', 'reset your password');
    await same('ＡＢＣ１２３', 'abc123'); // NFKC folds full-width forms
    await same('كَلِمَةُ المُرُور', 'كلمة المرور');
  });

  it('rejects a nonsensical dimension', () => {
    expect(() => new HashingEmbeddings({ dimensions: 0 })).toThrow(/dimensions/);
    expect(() => new HashingEmbeddings({ dimensions: 1.5 })).toThrow(/dimensions/);
  });

  it('embeds a 200,000-character document in ~250 chunks quickly', async () => {
    const mixed = Object.values(passages).flatMap((p) => [p.refund, p.shipping, p.password]).join('\n\n');
    const doc = mixed.repeat(Math.ceil(200_000 / mixed.length)).slice(0, 200_000);
    const chunks: string[] = [];
    for (let i = 0; i < doc.length; i += 800) chunks.push(doc.slice(i, i + 800));
    expect(chunks).toHaveLength(250);
    const started = performance.now();
    const out = await embedder.embedDocuments(chunks);
    const elapsed = performance.now() - started;
    expect(out).toHaveLength(250);
    expect(elapsed).toBeLessThan(2000); // typically ~100 ms; lenient for slow CI machines
  });
});
