import 'reflect-metadata';
import { CHAT_MESSAGE_MAX } from '@sa/contracts';
import { ParsedMail, simpleParser } from 'mailparser';
import { automatedReason, isAutomated, MAX_REFERENCES, normalizeMessageId, stripReply, toInboundMessage, visibleText } from './inbound-mail';

/** A raw message: the given headers (From, To, Subject, Message-ID unless overridden), CRLF, the body. */
function raw(headers: Record<string, string | null>, body: string): string {
  const all: Record<string, string | null> = {
    From: '"Jane Doe" <Jane.Doe@Example.com>',
    To: 'support@shop.test',
    Subject: 'Order question',
    'Message-ID': '<m1@example.com>',
    Date: 'Mon, 01 Jan 2024 10:00:00 +0000',
    'Content-Type': 'text/plain; charset=utf-8',
    ...headers,
  };
  const lines = Object.entries(all)
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${k}: ${v}`);
  return `${lines.join('\r\n')}\r\n\r\n${body.replace(/\r?\n/g, '\r\n')}`;
}

function parse(headers: Record<string, string | null>, body = 'Hello, is my order shipped?'): Promise<ParsedMail> {
  return simpleParser(raw(headers, body));
}

describe('automatedReason', () => {
  it('lets a message a person wrote through', async () => {
    const mail = await parse({});
    expect(automatedReason(mail, ['support@shop.test'])).toBeNull();
    expect(isAutomated(mail)).toBe(false);
  });

  it.each([
    [{ 'Auto-Submitted': 'auto-replied' }, 'Auto-Submitted: auto-replied'],
    [{ 'Auto-Submitted': 'auto-generated; owner-email="x@example.com"' }, 'Auto-Submitted: auto-generated'],
    [{ 'Auto-Submitted': 'Auto-Notified' }, 'Auto-Submitted: auto-notified'],
    [{ Precedence: 'bulk' }, 'Precedence: bulk'],
    [{ Precedence: 'junk' }, 'Precedence: junk'],
    [{ Precedence: 'List' }, 'Precedence: list'],
    [{ Precedence: 'auto_reply' }, 'Precedence: auto_reply'],
    [{ 'X-Autoreply': 'yes' }, 'x-autoreply header'],
    [{ 'X-Autorespond': 'Out of office' }, 'x-autorespond header'],
    [{ 'X-Auto-Response-Suppress': 'All' }, 'X-Auto-Response-Suppress: all'],
    [{ 'X-Auto-Response-Suppress': 'DR, OOF' }, 'X-Auto-Response-Suppress: oof'],
    [{ 'X-Auto-Response-Suppress': 'AutoReply' }, 'X-Auto-Response-Suppress: autoreply'],
    [{ 'List-Id': 'Announcements <news.lists.example.com>' }, 'mailing list (List-Id / List-Unsubscribe)'],
    [{ 'List-Unsubscribe': '<https://example.com/unsubscribe?u=1>' }, 'mailing list (List-Id / List-Unsubscribe)'],
    [{ From: 'Mail Delivery System <MAILER-DAEMON@mx.example.com>' }, 'system sender (From MAILER-DAEMON@mx.example.com)'],
    [{ From: 'postmaster@example.com' }, 'system sender (From postmaster@example.com)'],
    [{ From: 'Shop <no-reply@example.com>' }, 'system sender (From no-reply@example.com)'],
    [{ 'Return-Path': '<>' }, 'bounce (empty Return-Path)'],
    [{ 'Return-Path': '<mailer-daemon@example.com>' }, 'system sender (Return-Path mailer-daemon@example.com)'],
    [{ 'X-Failed-Recipients': 'someone@example.com' }, 'bounce (X-Failed-Recipients)'],
    [{ 'Content-Type': 'multipart/report; report-type=delivery-status; boundary="b"' }, 'delivery or read report (multipart/report)'],
    [{ 'Content-Type': 'multipart/report; report-type=disposition-notification; boundary="b"' }, 'delivery or read report (multipart/report)'],
  ])('refuses %j (%s)', async (headers: Record<string, string>, reason) => {
    const body = headers['Content-Type'] ? '--b\r\nContent-Type: text/plain\r\n\r\nDelivery failed\r\n--b--\r\n' : 'I am out of the office.';
    const mail = await parse(headers, body);
    expect(automatedReason(mail)).toBe(reason);
    expect(isAutomated(mail)).toBe(true);
  });

  it.each([
    [{ 'Auto-Submitted': 'no' }],
    [{ 'Auto-Submitted': 'No' }],
    [{ Precedence: 'first-class' }],
    [{ 'X-Autoreply': 'no' }],
    [{ 'X-Auto-Response-Suppress': 'DR, RN, NRN' }],
    [{ 'Return-Path': '<jane.doe@example.com>' }],
    [{ From: 'Daemon Fan <daemon.fan@example.com>' }],
  ])('answers %j (not an automatic message)', async (headers) => {
    expect(automatedReason(await parse(headers))).toBeNull();
  });

  it('refuses mail from our own address, whatever its case', async () => {
    const mail = await parse({ From: 'Shop Support <Support@Shop.test>' });
    expect(automatedReason(mail, ['support@shop.test'])).toBe('from our own address Support@Shop.test');
    expect(automatedReason(mail, ['other@shop.test'])).toBeNull();
  });

  it('refuses our own answers by their Auto-Submitted header even from another address', async () => {
    const mail = await parse({ From: 'bot@other.test', 'Auto-Submitted': 'auto-replied', 'In-Reply-To': '<m1@example.com>' });
    expect(isAutomated(mail, ['support@shop.test'])).toBe(true);
  });
});

describe('stripReply', () => {
  it('strips a Gmail plain-text reply (attribution, quote, quoted signature)', () => {
    const text = [
      'Thanks, that worked!',
      '',
      'One more question: do you ship to Norway?',
      '',
      'On Mon, Jan 1, 2024 at 10:00 AM Shop Support <support@shop.test> wrote:',
      '',
      '> Please restart the device.',
      '>',
      '> --',
      '> Shop support',
    ].join('\n');
    expect(stripReply(text)).toBe('Thanks, that worked!\n\nOne more question: do you ship to Norway?');
  });

  it('strips a Gmail attribution wrapped over two lines', () => {
    const text = 'Yes please.\r\n\r\nOn Mon, Jan 1, 2024 at 10:00 AM Shop Support with a long name <\r\nsupport@shop.test> wrote:\r\n\r\n> Shall we send a replacement?\r\n';
    expect(stripReply(text)).toBe('Yes please.');
  });

  it('strips a Gmail HTML reply (gmail_quote) as mailparser renders it', async () => {
    const html =
      '<div dir="ltr">Thanks, that worked!<br><br>Do you ship to Norway?</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, Jan 1, 2024 at 10:00 AM Support &lt;<a href="mailto:support@shop.test">support@shop.test</a>&gt; wrote:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex"><div dir="ltr">Please restart the device.<br></div></blockquote></div>';
    const mail = await parse({ 'Content-Type': 'text/html; charset=utf-8' }, html);
    expect(visibleText(mail)).toBe('Thanks, that worked!\n\nDo you ship to Norway?');
  });

  it('strips an Outlook reply (underscores, From/Sent/To/Subject block, unquoted history)', () => {
    const text = [
      'Yes, it is order 1234.',
      '',
      'Best regards,',
      'Jane',
      '',
      '________________________________',
      'From: Shop Support <support@shop.test>',
      'Sent: Monday, January 1, 2024 10:00 AM',
      'To: Jane Doe <jane@example.com>',
      'Subject: RE: Order question',
      '',
      'Which order number is it?',
    ].join('\r\n');
    expect(stripReply(text)).toBe('Yes, it is order 1234.\n\nBest regards,\nJane');
  });

  it('strips Outlook in bold-header HTML-to-text form and in German', () => {
    const bold = 'Works now.\n\n*From:* Shop Support <support@shop.test>\n*Sent:* Monday, January 1, 2024 10:00\n*To:* Jane\n*Subject:* Re: x\n\nold text';
    expect(stripReply(bold)).toBe('Works now.');
    const german = 'Danke!\n\nVon: Shop Support <support@shop.test>\nGesendet: Montag, 1. Januar 2024 10:00\nAn: Jane Doe\nBetreff: AW: Bestellung\n\nAlter Text';
    expect(stripReply(german)).toBe('Danke!');
  });

  it('strips an Outlook "-----Original Message-----" reply', () => {
    const text = 'See you then.\n\n-----Original Message-----\nFrom: Shop Support\nSent: Monday\n\nAre you free tomorrow?';
    expect(stripReply(text)).toBe('See you then.');
  });

  it('strips an Apple Mail reply with its "Sent from my iPhone"', () => {
    const text = 'Sure, tomorrow works.\n\nSent from my iPhone\n\n> On 5 Jan 2024, at 10:00, Shop Support <support@shop.test> wrote:\n> \n> Can we call tomorrow?\n';
    expect(stripReply(text)).toBe('Sure, tomorrow works.');
    const desktop = 'Sure.\n\nOn Jan 5, 2024, at 10:00, Shop Support <support@shop.test> wrote:\n\n> Can we call tomorrow?\n';
    expect(stripReply(desktop)).toBe('Sure.');
  });

  it('strips localized attributions', () => {
    expect(stripReply('Merci !\n\nLe lun. 1 janv. 2024 à 10:00, Support <support@shop.test> a écrit :\n> Bonjour')).toBe('Merci !');
    expect(stripReply('Danke!\n\nAm 01.01.2024 um 10:00 schrieb Support <support@shop.test>:\n> Hallo')).toBe('Danke!');
    expect(stripReply('Tack!\n\nDen 1 jan. 2024 kl. 10:00 skrev Support <support@shop.test>:\n> Hej')).toBe('Tack!');
    expect(stripReply('Bedankt!\n\nOp ma 1 jan. 2024 om 10:00 schreef Support <support@shop.test>:\n> Hoi')).toBe('Bedankt!');
    expect(stripReply('¡Gracias!\n\nEl lun, 1 ene 2024 a las 10:00, Support (<support@shop.test>) escribió:\n> Hola')).toBe('¡Gracias!');
  });

  it('strips an RFC 3676 signature and mobile signatures', () => {
    expect(stripReply('Thanks\n\n-- \nJane Doe\nACME Corp\n+1 555 0100')).toBe('Thanks');
    expect(stripReply('Thanks\n--\nJane')).toBe('Thanks');
    expect(stripReply('Thanks\n\nGet Outlook for iOS<https://aka.ms/o0ukef>')).toBe('Thanks');
    expect(stripReply('Danke\n\nVon meinem iPhone gesendet')).toBe('Danke');
  });

  it('keeps a bottom-posted answer and inline answers, dropping only the quotes', () => {
    expect(stripReply('On Mon, Jan 1, 2024, Support <support@shop.test> wrote:\n> Which size?\n\nSize M, please.')).toBe('Size M, please.');
    expect(stripReply('> Which size?\nM\n> Which colour?\nBlue')).toBe('M\nBlue');
  });

  it('cuts unquoted history after an attribution', () => {
    expect(stripReply('Answer here.\n\nOn Mon, Jan 1, 2024, Support wrote:\nOld unquoted text')).toBe('Answer here.');
  });

  it('keeps text that only resembles an attribution or a header', () => {
    const text = 'Here is what my colleague wrote:\nThe printer shows error 42.\nFrom: the third floor';
    expect(stripReply(text)).toBe(text);
    expect(stripReply('My order -- the blue one -- is late.')).toBe('My order -- the blue one -- is late.');
  });

  it('keeps the history of a forward (the forwarded mail is the question)', async () => {
    const body = 'Can you help with this?\n\n---------- Forwarded message ---------\nFrom: Courier <info@courier.example>\nDate: Mon, Jan 1, 2024\nSubject: Delivery failed\nTo: jane@example.com\n\nWe could not deliver parcel 77.';
    const mail = await parse({ Subject: 'Fwd: Delivery failed' }, body);
    expect(visibleText(mail)).toContain('We could not deliver parcel 77.');
    const reply = await parse({ Subject: 'Re: Delivery failed' }, body);
    expect(visibleText(reply)).toBe('Can you help with this?\n\n---------- Forwarded message ---------');
  });

  it('caps the text at the chat message maximum, counting characters', async () => {
    const mail = await parse({}, '€'.repeat(CHAT_MESSAGE_MAX + 500));
    const text = visibleText(mail);
    expect([...text]).toHaveLength(CHAT_MESSAGE_MAX);
  });

  it('stays fast on hostile input (linear, bounded)', () => {
    const lines = ['On at wrote on at '.repeat(20) + 'x', 'x' + ' on at'.repeat(2000), 'From: a\n'.repeat(5000), '>'.repeat(50_000)];
    const started = Date.now();
    for (const text of lines) stripReply(text.repeat(3));
    stripReply('On\n'.repeat(60_000));
    expect(Date.now() - started).toBeLessThan(1500);
  });
});

describe('toInboundMessage', () => {
  it('builds the message of a new thread', async () => {
    const msg = toInboundMessage(await parse({}));
    expect(msg).toEqual({
      providerMessageId: '<m1@example.com>',
      conversationKey: 'jane.doe@example.com <m1@example.com>',
      text: 'Hello, is my order shipped?',
      sender: { id: 'jane.doe@example.com', name: 'Jane Doe', email: 'jane.doe@example.com' },
      sentAt: Date.parse('2024-01-01T10:00:00Z'),
      replyTo: { to: 'Jane.Doe@Example.com', subject: 'Order question', message_id: '<m1@example.com>', references: [] },
    });
  });

  it('keys a reply by the first of References (the thread root)', async () => {
    const msg = toInboundMessage(
      await parse({ 'Message-ID': '<m3@example.com>', 'In-Reply-To': '<bot2@shop.test>', References: '<m1@example.com> <bot2@shop.test>', Subject: 'Re: Order question' }),
    );
    expect(msg?.conversationKey).toBe('jane.doe@example.com <m1@example.com>');
    expect(msg?.replyTo).toEqual({ to: 'Jane.Doe@Example.com', subject: 'Re: Order question', message_id: '<m3@example.com>', references: ['<m1@example.com>', '<bot2@shop.test>'] });
  });

  it('keys a reply without References by In-Reply-To', async () => {
    const msg = toInboundMessage(await parse({ 'Message-ID': '<m3@example.com>', 'In-Reply-To': '<bot2@shop.test>' }));
    expect(msg?.conversationKey).toBe('jane.doe@example.com <bot2@shop.test>');
    expect(msg?.replyTo['references']).toEqual(['<bot2@shop.test>']);
  });

  it('gives another sender citing the same thread a session of their own', async () => {
    const msg = toInboundMessage(await parse({ From: 'mallory@evil.test', 'Message-ID': '<x@evil.test>', References: '<m1@example.com>' }));
    expect(msg?.conversationKey).toBe('mallory@evil.test <m1@example.com>');
  });

  it('makes a stable Message-ID for a message without one, the same for a re-delivered copy', async () => {
    const first = toInboundMessage(await parse({ 'Message-ID': null, Received: 'from a.example by mx1' }));
    const again = toInboundMessage(await parse({ 'Message-ID': null, Received: 'from b.example by mx2', 'Delivered-To': 'support@shop.test' }));
    const other = toInboundMessage(await parse({ 'Message-ID': null }, 'A different question'));
    expect(first?.providerMessageId).toMatch(/^<[0-9a-f]{40}@no-message-id\.invalid>$/);
    expect(again?.providerMessageId).toBe(first?.providerMessageId);
    expect(other?.providerMessageId).not.toBe(first?.providerMessageId);
    expect(first?.conversationKey).toBe(`jane.doe@example.com ${first?.providerMessageId}`);
  });

  it('bounds References: the root and the most recent', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => `<r${i}@example.com>`);
    const msg = toInboundMessage(await parse({ References: ids.join(' ') }));
    const refs = msg?.replyTo['references'] as string[];
    expect(refs).toHaveLength(MAX_REFERENCES);
    expect(refs[0]).toBe('<r0@example.com>');
    expect(refs[refs.length - 1]).toBe('<r49@example.com>');
  });

  it('hashes an overlong Message-ID, the same way wherever it appears', async () => {
    const long = `<${'a'.repeat(400)}@example.com>`;
    const own = toInboundMessage(await parse({ 'Message-ID': long }));
    const reply = toInboundMessage(await parse({ 'Message-ID': '<m9@example.com>', References: long }));
    expect(own?.providerMessageId).toMatch(/^<[0-9a-f]{64}@long-message-id\.invalid>$/);
    expect(reply?.conversationKey).toBe(`jane.doe@example.com ${own?.providerMessageId}`);
  });

  it('returns null without a sender address or without text', async () => {
    expect(toInboundMessage(await parse({ From: 'undisclosed-recipients:;' }))).toBeNull();
    expect(toInboundMessage(await parse({ From: null }))).toBeNull();
    expect(toInboundMessage(await parse({}, '> only a quote\n> nothing new'))).toBeNull();
  });

  it('keeps header injection out of the subject and the name', async () => {
    const mail = await parse({ Subject: '=?utf-8?Q?Hi=0D=0ABcc:_victim@example.com?=', From: '=?utf-8?Q?Jane=0D=0ABcc=3A_x?= <jane@example.com>' });
    const msg = toInboundMessage(mail);
    expect(msg?.replyTo['subject']).toBe('Hi Bcc: victim@example.com');
    expect(msg?.sender.name).toBe('Jane Bcc: x');
  });
});

describe('normalizeMessageId', () => {
  it('takes the bracketed id, wraps a bare one and refuses garbage', () => {
    expect(normalizeMessageId(' <a@b> ')).toBe('<a@b>');
    expect(normalizeMessageId('a@b')).toBe('<a@b>');
    expect(normalizeMessageId('not an id')).toBeNull();
    expect(normalizeMessageId('')).toBeNull();
    expect(normalizeMessageId(undefined)).toBeNull();
  });
});
