import 'reflect-metadata';
import { extractWebText as extractText } from './web-text';
import { UnsupportedContent } from './doc-text.exception';

const utf8 = (s: string) => Buffer.from(s, 'utf8');
const hex = (h: string) => Buffer.from(h, 'hex');

/** A help-centre page as sites really serve them: header, nav, cookie banner, sidebar, footer around one article. */
const HELP_PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>How do I return an item? – Acme Help Center</title>
  <style>body { font-family: sans-serif }</style>
  <script>window.dataLayer = [];</script>
</head>
<body class="cookie-consent-pending">
  <div id="cookie-banner" class="consent-popup" role="dialog">
    <p>We use cookies to improve your experience and for marketing. <a href="/privacy">Learn more</a></p>
    <button>Accept all</button><button>Reject</button>
  </div>
  <header class="site-header">
    <a href="/" class="logo">Acme</a>
    <nav class="main-menu"><ul><li><a href="/pricing">Pricing</a></li><li><a href="/blog">Blog</a></li><li><a href="/careers">Careers</a></li><li><a href="/contact">Contact sales</a></li></ul></nav>
  </header>
  <div class="layout">
    <aside class="sidebar"><h3>Popular topics</h3><ul><li><a href="/a">Gift cards</a></li><li><a href="/b">Loyalty points</a></li></ul></aside>
    <main>
      <article class="post">
        <h1>How do I return an item?</h1>
        <p>You can return any unused item within 30 days of delivery. The item must be in its original
           packaging, with all labels attached, and you need the order number from your confirmation email.</p>
        <p>To start a return, sign in to your account, open <strong>Orders</strong>, choose the order and select
           <em>Return items</em>. Print the prepaid label and drop the parcel at any post office within seven days.</p>
        <h2>When will I get my money back?</h2>
        <p>Refunds are issued to the original payment method as soon as the warehouse has inspected the parcel,
           usually within five business days of its arrival. Bank transfers can take a further two or three days.</p>
        <ul><li>Sale items can be returned too.</li><li>Personalised items cannot be returned.</li></ul>
      </article>
    </main>
  </div>
  <footer class="site-footer"><p>© 2025 Acme Inc. All rights reserved.</p><a href="/terms">Terms</a> · <a href="/privacy">Privacy</a></footer>
  <script>trackPageView();</script>
</body>
</html>`;

describe('extractText: HTML', () => {
  it('keeps the main article with its paragraphs and drops nav, cookie banner, sidebar, footer and scripts', () => {
    const out = extractText({ body: utf8(HELP_PAGE), contentType: 'text/html; charset=utf-8', url: 'https://help.acme.test/returns' });
    expect(out.kind).toBe('html');
    expect(out.title).toBe('How do I return an item?');
    expect(out.text).toContain('You can return any unused item within 30 days of delivery. The item must be in its original packaging, with all labels attached');
    expect(out.text).toContain('open Orders, choose the order and select Return items.');
    expect(out.text).toContain('When will I get my money back?');
    expect(out.text).toContain('Personalised items cannot be returned.');
    // Paragraph breaks survive; source line breaks inside a paragraph do not.
    expect(out.text).toMatch(/confirmation email\.\n\nTo start a return/);
    expect(out.text).toMatch(/Sale items can be returned too\.\n+Personalised items/);
    for (const boilerplate of ['cookies', 'Accept all', 'Pricing', 'Careers', 'Popular topics', 'Gift cards', 'All rights reserved', 'dataLayer', 'trackPageView', 'font-family']) {
      expect(out.text).not.toContain(boilerplate);
    }
  });

  it('decodes a Japanese page in Shift_JIS named by <meta charset>', () => {
    const body = Buffer.concat([
      utf8('<html><head><meta charset="Shift_JIS"><title>'),
      hex('95d4956982c982c282a282c48162835483938376838b8fa49358'), // 返品について｜サンプル商店
      utf8('</title></head><body><nav><a href="/">Home</a></nav><article><h1>'),
      hex('95d4956982c982c282a282c4'), // 返品について
      utf8('</h1><p>'),
      hex('8fa49569939e92858ce3333093fa88c893e082c582a082ea82ce814196a28e67977082cc8fa4956982f095d4956982c582ab82dc82b78142'),
      utf8('</p><p>'),
      hex('95d48be082cd8cb382cc82a88e7895a582a295fb964082c93589638bc693fa88c893e082c996df82e882dc82b78142'),
      utf8('</p></article></body></html>'),
    ]);
    const out = extractText({ body, contentType: 'text/html', url: 'https://shop.example.jp/help/henpin.html' });
    expect(out.title).toBe('返品について'); // the <h1>, as the <title> is the h1 plus the shop's name
    expect(out.text).toContain('商品到着後30日以内であれば、未使用の商品を返品できます。\n\n返金は元のお支払い方法に5営業日以内に戻ります。');
  });

  it('prefers the Content-Type charset to the document’s own claim', () => {
    const body = Buffer.concat([utf8('<html><head><meta charset="utf-8"></head><body><p>'), hex('82b2957396be82c8935f82cd8354837c815b8367918b8cfb82dc82c582a896e282a28d8782ed82b982ad82be82b382a28142'), utf8('</p></body></html>')]);
    const out = extractText({ body, contentType: 'text/html; charset=Shift_JIS', url: 'https://shop.example.jp/' });
    expect(out.text).toBe('ご不明な点はサポート窓口までお問い合わせください。');
  });

  it('extracts an Arabic right-to-left page', () => {
    const page = `<!doctype html><html lang="ar" dir="rtl"><head><meta charset="utf-8"><title>سياسة الاسترداد | متجر المثال</title></head>
      <body><nav><a href="/">الرئيسية</a> <a href="/offers">العروض</a></nav>
      <main><article><h1>سياسة الاسترداد</h1>
      <p>يمكنك استرداد المبلغ كاملاً خلال ثلاثين يوماً من استلام المنتج إذا لم يتم استخدامه.</p>
      <p>يعود المبلغ إلى بطاقتك خلال خمسة أيام عمل بعد فحص المنتج في المستودع.</p></article></main>
      <footer>جميع الحقوق محفوظة</footer></body></html>`;
    const out = extractText({ body: utf8(page), contentType: 'text/html;charset=UTF-8', url: 'https://example.sa/refunds' });
    expect(out.text).toContain('يمكنك استرداد المبلغ كاملاً خلال ثلاثين يوماً من استلام المنتج إذا لم يتم استخدامه.\n\nيعود المبلغ إلى بطاقتك');
    expect(out.text).not.toContain('جميع الحقوق محفوظة');
    expect(out.title).toMatch(/سياسة الاسترداد/);
  });

  it.each([
    ['euc-kr', 'c8afbad220bec8b3bb3a20bbe7bfebc7cfc1f620becac0ba20bbf3c7b0c0ba203330c0cf20c0ccb3bbbfa120c8afbad2b5cbb4cfb4d92e', '환불 안내: 사용하지 않은 상품은 30일 이내에 환불됩니다.'],
    ['gb18030', 'cdcbbfeed5feb2dfa3baceb4cab9d3c3b5c4c9ccc6b7bfc9d4dac8fdcaaeccecc4dac8abb6eecdcbbfeea1a3', '退款政策：未使用的商品可在三十天内全额退款。'],
    ['iso-8859-1', '436166e9206372e86d6520962032302080', 'Café crème – 20 €'], // browsers read latin-1 as windows-1252
  ])('decodes %s from the Content-Type', (charset, bytes, expected) => {
    const body = Buffer.concat([utf8('<p>'), hex(bytes), utf8('</p>')]);
    expect(extractText({ body, contentType: `text/html; charset="${charset}"`, url: 'https://x.test/' }).text).toBe(expected);
  });

  it('reads bytes that are not UTF-8 as windows-1252 when nothing names a charset', () => {
    const body = Buffer.concat([utf8('<p>'), hex('436166e9206372e86d65'), utf8('</p>')]);
    expect(extractText({ body, contentType: 'text/html', url: 'https://x.test/' }).text).toBe('Café crème');
  });

  it('handles a bare fragment', () => {
    expect(extractText({ body: utf8('<h2>Opening hours</h2><p>Mon–Fri 9:00–17:00</p>'), contentType: 'text/html', url: 'https://x.test/hours' })).toEqual({
      kind: 'html',
      title: null,
      text: 'Opening hours\n\nMon–Fri 9:00–17:00',
    });
  });

  it('falls back to the body text minus navigation when Readability finds no article', () => {
    // Readability ignores <aside> entirely, so on this page it finds nothing.
    const page = `<html><head><title>Contact</title></head><body><header><nav><a href="/">Home</a> · <a href="/blog">Blog</a></nav></header>
      <aside><p>Phone: +60 3-1234 5678</p><p>Email: help@example.my</p></aside><footer>© Example Sdn Bhd</footer></body></html>`;
    expect(extractText({ body: utf8(page), contentType: 'text/html', url: 'https://example.my/contact' })).toEqual({
      kind: 'html',
      title: 'Contact',
      text: 'Phone: +60 3-1234 5678\n\nEmail: help@example.my',
    });
  });

  it('gives empty text for a page without content, such as a single-page app shell', () => {
    const shell = '<!doctype html><html><head><title>App</title><script src="/app.js"></script></head><body><div id="root"></div><noscript>Enable JavaScript</noscript></body></html>';
    expect(extractText({ body: utf8(shell), contentType: 'text/html', url: 'https://app.test/' }).text).toBe('');
  });
});

describe('extractText: text and Markdown', () => {
  it('keeps plain text as it is, tidying line endings, trailing spaces and runs of blank lines', () => {
    const out = extractText({ body: utf8('Line one  \r\nLine two\r\n\r\n\r\n\r\n    indented code\n\n\n'), contentType: 'text/plain; charset=utf-8', url: 'https://x.test/a.txt' });
    expect(out).toEqual({ kind: 'text', title: null, text: 'Line one\nLine two\n\n    indented code' });
  });

  it('recognises Markdown by type or by a .md URL, and takes its first heading as the title', () => {
    const md = '# การคืนเงิน\n\nคุณสามารถขอคืนเงินได้ภายใน 30 วัน\n\n- ข้อ 1\n  - ข้อ 1.1\n';
    const expected = { kind: 'markdown', title: 'การคืนเงิน', text: md.trimEnd() };
    expect(extractText({ body: utf8(md), contentType: 'text/markdown', url: 'https://x.test/refund' })).toEqual(expected);
    expect(extractText({ body: utf8(md), contentType: 'text/plain', url: 'https://raw.example.test/docs/refund.md' })).toEqual(expected);
    expect(extractText({ body: utf8(md), contentType: undefined, url: 'https://x.test/README.md' })).toEqual(expected);
  });

  it('drops a UTF-8 byte-order mark', () => {
    expect(extractText({ body: Buffer.concat([hex('efbbbf'), utf8('hello')]), contentType: 'text/plain', url: 'https://x.test/' }).text).toBe('hello');
  });

  it('sniffs HTML and text when the type is missing or generic', () => {
    expect(extractText({ body: utf8('<!doctype html><html><body><p>Hi there</p></body></html>'), contentType: 'application/octet-stream', url: 'https://x.test/page' }).kind).toBe('html');
    expect(extractText({ body: utf8('just words'), contentType: undefined, url: 'https://x.test/page' }).kind).toBe('text');
  });
});

describe('extractText: unsupported content', () => {
  it('names the unsupported content type', () => {
    const attempt = () => extractText({ body: hex('504b0304'), contentType: 'application/zip', url: 'https://x.test/a.zip' });
    expect(attempt).toThrow(UnsupportedContent);
    expect(attempt).toThrow('unsupported content type application/zip');
  });

  it('says that a crawled PDF is not read (files are uploaded), by type or by its magic bytes', () => {
    expect(() => extractText({ body: utf8('%PDF-1.7\n...'), contentType: 'application/pdf', url: 'https://x.test/a' })).toThrow('upload the PDF as a file');
    expect(() => extractText({ body: utf8('%PDF-1.7\n...'), contentType: undefined, url: 'https://x.test/download?id=3' })).toThrow('upload the PDF as a file');
  });

  it('refuses binary data without a type', () => {
    expect(() => extractText({ body: hex('00010203'), contentType: undefined, url: 'https://x.test/blob' })).toThrow('unsupported content type (none)');
  });
});
