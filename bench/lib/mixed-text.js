'use strict';
// A realistic knowledge-base text of an exact length: help-centre prose in English (headings,
// paragraphs, the odd list and number) with paragraphs in Japanese, Thai and Arabic mixed in,
// generated deterministically from a seed. Only BMP characters, so String#length, code points
// and the API's character count agree.

const { rng } = require('./rng');

const TOPICS = ['orders', 'shipping', 'returns', 'refunds', 'invoices', 'your account', 'passwords', 'subscriptions', 'the mobile app', 'integrations', 'privacy', 'team members', 'gift cards', 'warranty claims'];
const SUBJECTS = ['Your order', 'Every parcel', 'The invoice', 'A refund', 'Your subscription', 'The tracking link', 'Our support team', 'The warehouse', 'Your account owner', 'Each team member', 'The mobile app', 'The API key', 'A gift card', 'The courier'];
const VERBS = ['is sent', 'is confirmed', 'can be changed', 'is processed', 'is renewed', 'is available', 'is checked', 'is updated', 'can be cancelled', 'is delivered', 'is refunded', 'is shown'];
const TAILS = [
  'within two working days',
  'as soon as the payment has cleared',
  'from the Settings page of the dashboard',
  'by email to the address on file',
  'before the end of the billing period',
  'unless the item was marked as final sale',
  'once the warehouse has scanned the parcel',
  'for orders placed before noon on a working day',
  'when two-factor authentication is turned on',
  'in the currency of your region',
  'after the courier confirms the delivery',
  'for up to thirty days after purchase',
];
const EXTRAS = [
  'If anything is unclear, reply to the confirmation email and a person will answer.',
  'Keep the original packaging and the receipt; the warehouse needs both.',
  'Prices include VAT where it applies, and the invoice shows it on a separate line.',
  'Refunds go back to the card or account that paid, never to another one.',
  'Tracking numbers from the courier usually become active a few hours after dispatch.',
  'Business customers can ask for a PDF invoice with their VAT number at any time.',
  'Support is open Monday to Friday from 9:00 to 18:00, except public holidays.',
  'Large items are delivered by a freight partner who will call to agree on a time slot.',
];
const JA = [
  'ご注文の商品は通常二営業日以内に発送されます。',
  '返品をご希望の場合は、商品到着後三十日以内にカスタマーサポートまでご連絡ください。',
  'パスワードを忘れた場合は、ログイン画面の「パスワードを再設定」から手続きできます。',
  '請求書はダッシュボードの「請求」ページからいつでもダウンロードできます。',
  '配送状況は追跡番号を使って配送業者のサイトで確認できます。',
  'サブスクリプションは次回更新日の前日までに解約すると料金は発生しません。',
  '営業時間は平日の午前九時から午後六時までです。',
  'ギフトカードの有効期限は購入日から三年間です。',
];
const TH = [
  'คำสั่งซื้อของคุณจะถูกจัดส่งภายในสองวันทำการ',
  'หากต้องการคืนสินค้า กรุณาติดต่อฝ่ายบริการลูกค้าภายในสามสิบวันหลังได้รับสินค้า',
  'หากลืมรหัสผ่าน กรุณากดรีเซ็ตรหัสผ่านที่หน้าเข้าสู่ระบบ',
  'คุณสามารถดาวน์โหลดใบแจ้งหนี้ได้จากหน้าการเรียกเก็บเงิน',
  'ติดตามสถานะการจัดส่งได้ด้วยหมายเลขพัสดุบนเว็บไซต์ของบริษัทขนส่ง',
  'ฝ่ายบริการลูกค้าเปิดทำการวันจันทร์ถึงวันศุกร์ เวลาเก้าโมงเช้าถึงหกโมงเย็น',
];
const AR = [
  'يتم شحن الطلبات عادة خلال يومي عمل.',
  'إذا كنت ترغب في إرجاع منتج، يرجى التواصل مع خدمة العملاء خلال ثلاثين يوما من الاستلام.',
  'إذا نسيت كلمة المرور، اضغط على إعادة تعيين كلمة المرور في صفحة تسجيل الدخول.',
  'يمكنك تنزيل الفاتورة في أي وقت من صفحة الفواتير في لوحة التحكم.',
  'هل يمكنني تغيير عنوان التوصيل بعد الطلب؟ نعم، قبل أن يغادر الطرد المستودع.',
  'ساعات العمل من الاثنين إلى الجمعة من التاسعة صباحا حتى السادسة مساء.',
];

/**
 * `length` characters of mixed-language help-centre text (about 85 % English by characters,
 * the rest Japanese, Thai and Arabic paragraphs), the same for the same seed.
 */
function mixedLanguageText(length, seed = 1) {
  const r = rng(seed);
  const pick = (list) => list[Math.floor(r() * list.length)];
  const englishSentence = () => `${pick(SUBJECTS)} ${pick(VERBS)} ${pick(TAILS)}${r() < 0.3 ? `, and ${pick(TAILS)}` : ''}.`;
  const parts = [];
  let size = 0;
  let section = 0;
  while (size < length) {
    let block;
    const roll = r();
    if (roll < 0.08) {
      section++;
      block = `## ${section}. Questions about ${pick(TOPICS)}`;
    } else if (roll < 0.13) {
      block = Array.from({ length: 3 + Math.floor(r() * 3) }, () => `- ${englishSentence()}`).join('\n');
    } else if (roll < 0.19) {
      block = Array.from({ length: 2 + Math.floor(r() * 4) }, () => pick(JA)).join('');
    } else if (roll < 0.24) {
      block = Array.from({ length: 2 + Math.floor(r() * 3) }, () => pick(TH)).join(' ');
    } else if (roll < 0.29) {
      block = Array.from({ length: 2 + Math.floor(r() * 3) }, () => pick(AR)).join(' ');
    } else {
      const n = 3 + Math.floor(r() * 5);
      const sentences = Array.from({ length: n }, () => (r() < 0.2 ? pick(EXTRAS) : englishSentence()));
      if (r() < 0.15) sentences.push(`Reference ${Math.floor(r() * 90000 + 10000)}-${Math.floor(r() * 900 + 100)} applies to ${Math.floor(r() * 48 + 2)} items.`);
      block = sentences.join(' ');
    }
    parts.push(block);
    size += block.length + 2;
  }
  let text = parts.join('\n\n').slice(0, length);
  if (/\s$/.test(text)) text = `${text.slice(0, -1)}.`;
  return text;
}

/** Share of characters per script, for the log. */
function scriptShares(text) {
  const counts = { latin: 0, japanese: 0, thai: 0, arabic: 0, other: 0 };
  for (const ch of text) {
    const c = ch.codePointAt(0);
    if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) counts.latin++;
    else if ((c >= 0x3040 && c <= 0x30ff) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3000 && c <= 0x303f) || (c >= 0xff00 && c <= 0xffef)) counts.japanese++;
    else if (c >= 0x0e00 && c <= 0x0e7f) counts.thai++;
    else if (c >= 0x0600 && c <= 0x06ff) counts.arabic++;
    else counts.other++;
  }
  return Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, Math.round((v / text.length) * 1000) / 10]));
}

module.exports = { mixedLanguageText, scriptShares };
