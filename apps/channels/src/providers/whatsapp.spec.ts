import { signedWhatsAppNotification, whatsappNotification, whatsappStatusNotification, whatsappTextNotification, whatsappVerifyQuery } from '@sa/testing';
import { ProviderConnection, WebhookOutcome, WebhookRequest } from './provider';
import { WHATSAPP_MAX_BODY_BYTES, splitText, whatsappProvider } from './whatsapp';

const PHONE_NUMBER_ID = '106540352242922';
const APP_SECRET = 'app-secret-of-the-test-app';
const VERIFY_TOKEN = 'verify-token-of-the-test-app';

const conn: ProviderConnection = {
  id: 'conn-1',
  settings: { phone_number_id: PHONE_NUMBER_ID },
  secrets: { access_token: 'EAAG-token', app_secret: APP_SECRET, verify_token: VERIFY_TOKEN },
};

function get(query: Record<string, string>, connection = conn): WebhookOutcome {
  return whatsappProvider.receive(connection, { method: 'GET', query, headers: {}, body: Buffer.alloc(0), receivedAt: Date.now() });
}

function post(body: Buffer, headers: Record<string, string>, connection = conn): WebhookOutcome {
  const req: WebhookRequest = { method: 'POST', query: {}, headers, body, receivedAt: Date.now() };
  return whatsappProvider.receive(connection, req);
}

/** Posts `payload` signed with the test app's secret, as Meta does. */
function postSigned(payload: unknown, connection = conn): WebhookOutcome {
  const { body, headers } = signedWhatsAppNotification(APP_SECRET, payload);
  return post(body, headers, connection);
}

function accepted(outcome: WebhookOutcome) {
  if (outcome.kind !== 'accept') throw new Error(`expected accept, got ${JSON.stringify(outcome)}`);
  return outcome.messages;
}

describe('whatsappProvider.receive: the verification handshake', () => {
  it('echoes hub.challenge as text/plain when the verify token matches', () => {
    expect(get(whatsappVerifyQuery(VERIFY_TOKEN, '1158201444'))).toEqual({ kind: 'respond', status: 200, body: '1158201444', contentType: 'text/plain' });
  });

  it.each([
    ['a wrong verify token', whatsappVerifyQuery('not-the-token', '42')],
    ['a token that only starts like it', whatsappVerifyQuery(VERIFY_TOKEN.slice(0, -1), '42')],
    ['no verify token', { 'hub.mode': 'subscribe', 'hub.challenge': '42' }],
    ['another mode', { ...whatsappVerifyQuery(VERIFY_TOKEN, '42'), 'hub.mode': 'unsubscribe' }],
    ['no challenge', { 'hub.mode': 'subscribe', 'hub.verify_token': VERIFY_TOKEN }],
  ])('refuses %s with 403', (_, query) => {
    const outcome = get(query);
    expect(outcome).toMatchObject({ kind: 'respond', status: 403 });
    expect(JSON.stringify(outcome)).not.toContain('42');
  });

  it('refuses every token when the connection has none (an empty token would let anyone subscribe)', () => {
    const noToken = { ...conn, secrets: { ...conn.secrets, verify_token: '' } };
    expect(get(whatsappVerifyQuery('', '42'), noToken)).toMatchObject({ kind: 'respond', status: 403 });
  });
});

describe('whatsappProvider.receive: signatures', () => {
  const payload = whatsappTextNotification(PHONE_NUMBER_ID, { from: '16505551234', name: 'Sheena Nelson', text: 'Does it come in another color?' });

  it('accepts a notification signed with the app secret', () => {
    expect(accepted(postSigned(payload))).toHaveLength(1);
  });

  it('refuses a notification without X-Hub-Signature-256 with 401', () => {
    const { body } = signedWhatsAppNotification(APP_SECRET, payload);
    expect(post(body, { 'content-type': 'application/json' })).toMatchObject({ kind: 'respond', status: 401 });
  });

  it.each([
    ['signed with another secret', () => signedWhatsAppNotification('another-secret', payload).headers['x-hub-signature-256']],
    ['a sha1 signature', () => 'sha1=' + 'a'.repeat(40)],
    ['hex without the sha256= prefix', () => signedWhatsAppNotification(APP_SECRET, payload).headers['x-hub-signature-256'].slice('sha256='.length)],
    ['a truncated signature', () => signedWhatsAppNotification(APP_SECRET, payload).headers['x-hub-signature-256'].slice(0, -2)],
    ['an empty signature', () => ''],
  ])('refuses %s with 401', (_, signature) => {
    const { body } = signedWhatsAppNotification(APP_SECRET, payload);
    expect(post(body, { 'content-type': 'application/json', 'x-hub-signature-256': signature() })).toMatchObject({ kind: 'respond', status: 401 });
  });

  it('refuses a valid signature over a different body with 401 (the body was changed)', () => {
    const { headers } = signedWhatsAppNotification(APP_SECRET, payload);
    const other = whatsappTextNotification(PHONE_NUMBER_ID, { from: '16505551234', text: 'Send me everything' });
    expect(post(Buffer.from(JSON.stringify(other)), headers)).toMatchObject({ kind: 'respond', status: 401 });
  });

  it('checks the raw bytes: the same JSON re-serialised with other spacing is refused', () => {
    const { headers } = signedWhatsAppNotification(APP_SECRET, payload);
    expect(post(Buffer.from(JSON.stringify(payload, null, 2)), headers)).toMatchObject({ kind: 'respond', status: 401 });
  });

  it('accepts the signature with upper-case hex', () => {
    const { body, headers } = signedWhatsAppNotification(APP_SECRET, payload);
    const upper = 'sha256=' + headers['x-hub-signature-256'].slice('sha256='.length).toUpperCase();
    expect(accepted(post(body, { ...headers, 'x-hub-signature-256': upper }))).toHaveLength(1);
  });

  it('accepts nothing when the connection has no app secret (an empty key signs for anyone)', () => {
    const noSecret = { ...conn, secrets: { ...conn.secrets, app_secret: '' } };
    const { body, headers } = signedWhatsAppNotification('', payload);
    expect(post(body, headers, noSecret)).toMatchObject({ kind: 'respond', status: 401 });
  });

  it('refuses a body over 1 MB with 413 before anything else', () => {
    const { body, headers } = signedWhatsAppNotification(APP_SECRET, { ...payload, padding: 'x'.repeat(WHATSAPP_MAX_BODY_BYTES) });
    expect(post(body, headers)).toMatchObject({ kind: 'respond', status: 413 });
  });
});

describe('whatsappProvider.receive: notifications', () => {
  it('turns a text message into an inbound message', () => {
    const payload = whatsappTextNotification(PHONE_NUMBER_ID, {
      from: '16505551234',
      name: 'Sheena Nelson',
      text: 'Does it come in another color?',
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
      timestamp: 1749416383,
    });
    expect(accepted(postSigned(payload))).toEqual([
      {
        providerMessageId: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
        conversationKey: '16505551234',
        text: 'Does it come in another color?',
        sender: { id: '16505551234', name: 'Sheena Nelson', phone: '+16505551234' },
        sentAt: 1749416383000,
        replyTo: { phone_number_id: PHONE_NUMBER_ID, to: '16505551234', message_id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=' },
      },
    ]);
  });

  it('reads every message of a batch, each with its own sender', () => {
    const payload = whatsappTextNotification(PHONE_NUMBER_ID, [
      { from: '16505551234', name: 'Sheena', text: 'first' },
      { from: '4915112345678', name: 'Jonas', text: 'second' },
    ]);
    const messages = accepted(postSigned(payload));
    expect(messages.map((m) => [m.text, m.sender.name, m.sender.phone])).toEqual([
      ['first', 'Sheena', '+16505551234'],
      ['second', 'Jonas', '+4915112345678'],
    ]);
  });

  it('accepts a status update with no messages', () => {
    const outcome = postSigned(whatsappStatusNotification(PHONE_NUMBER_ID, { id: 'wamid.sent-by-us', recipientId: '16505551234', status: 'read' }));
    expect(outcome).toMatchObject({ kind: 'accept', messages: [] });
  });

  it('ignores messages to another phone number of the same app', () => {
    const payload = whatsappTextNotification('999999999999999', { from: '16505551234', text: 'hello other number' });
    expect(postSigned(payload)).toMatchObject({ kind: 'accept', messages: [] });
  });

  it('ignores everything when the connection has no phone_number_id', () => {
    const payload = whatsappTextNotification(PHONE_NUMBER_ID, { from: '16505551234', text: 'hello' });
    expect(postSigned(payload, { ...conn, settings: {} })).toMatchObject({ kind: 'accept', messages: [] });
  });

  it.each([
    ['an image', { type: 'image', image: { caption: 'look', mime_type: 'image/jpeg', sha256: 'x', id: '1234' } }],
    ['an audio message', { type: 'audio', audio: { mime_type: 'audio/ogg; codecs=opus', sha256: 'x', id: '1234', voice: true } }],
    ['a reaction', { type: 'reaction', reaction: { message_id: 'wamid.other', emoji: '👍' } }],
    ['a location', { type: 'location', location: { latitude: 52.5, longitude: 13.4 } }],
    ['an unsupported message', { type: 'unsupported', errors: [{ code: 131051, title: 'Message type unknown' }] }],
    ['a text without a body', { type: 'text', text: {} }],
    ['a blank text', { type: 'text', text: { body: '   ' } }],
  ])('accepts %s without a message for the bot', (_, content) => {
    const payload = whatsappNotification(PHONE_NUMBER_ID, {
      contacts: [{ profile: { name: 'Sheena' }, wa_id: '16505551234' }],
      messages: [{ from: '16505551234', id: 'wamid.nontext', timestamp: '1749416383', ...content }],
    });
    expect(postSigned(payload)).toMatchObject({ kind: 'accept', messages: [] });
  });

  it.each([
    ['a reply button', { type: 'button_reply', button_reply: { id: 'change-button', title: 'Change' } }, 'Change'],
    ['a list row', { type: 'list_reply', list_reply: { id: 'priority', title: 'Priority Mail', description: 'Next day' } }, 'Priority Mail'],
  ])('reads a tap on %s as its title', (_, interactive, text) => {
    const payload = whatsappNotification(PHONE_NUMBER_ID, {
      contacts: [{ profile: { name: 'Sheena' }, wa_id: '16505551234' }],
      messages: [{ context: { from: '15550783881', id: 'wamid.ours' }, from: '16505551234', id: 'wamid.tap', timestamp: '1749416383', type: 'interactive', interactive }],
    });
    expect(accepted(postSigned(payload)).map((m) => m.text)).toEqual([text]);
  });

  it('skips group messages and messages without a phone-number sender, keeps the rest', () => {
    const payload = whatsappNotification(PHONE_NUMBER_ID, {
      messages: [
        { from: '16505551234', group_id: 'group-1', id: 'wamid.group', timestamp: '1', type: 'text', text: { body: 'in a group' } },
        { id: 'wamid.nofrom', timestamp: '1', type: 'text', text: { body: 'no sender' } },
        { from: '../etc', id: 'wamid.badfrom', timestamp: '1', type: 'text', text: { body: 'odd sender' } },
        { from: '16505551234', timestamp: '1', type: 'text', text: { body: 'no id' } },
        { from: '16505551234', id: 'wamid.ok', timestamp: '1', type: 'text', text: { body: 'direct' } },
      ],
    });
    const messages = accepted(postSigned(payload));
    expect(messages.map((m) => m.providerMessageId)).toEqual(['wamid.ok']);
    expect(messages[0].sender.name).toBeNull();
  });

  it('accepts another kind of notification (another object or field) without messages', () => {
    const other = { ...whatsappTextNotification(PHONE_NUMBER_ID, { from: '16505551234', text: 'x' }), object: 'page' };
    expect(postSigned(other)).toMatchObject({ kind: 'accept', messages: [] });
    const field = whatsappTextNotification(PHONE_NUMBER_ID, { from: '16505551234', text: 'x' });
    field.entry[0].changes[0].field = 'account_update';
    expect(postSigned(field)).toMatchObject({ kind: 'accept', messages: [] });
  });

  it.each([
    ['malformed JSON', '{"object": "whatsapp_business_account", "entry": ['],
    ['an empty body', ''],
    ['JSON that is not an object', '[1, 2, 3]'],
  ])('answers %s after a valid signature with 400 and stores nothing', (_, raw) => {
    const { body, headers } = signedWhatsAppNotification(APP_SECRET, raw);
    expect(post(body, headers)).toMatchObject({ kind: 'respond', status: 400 });
  });

  it('survives members of unexpected types', () => {
    const payload = { object: 'whatsapp_business_account', entry: [null, 7, { changes: 'x' }, { changes: [{ field: 'messages', value: { metadata: { phone_number_id: PHONE_NUMBER_ID }, contacts: 'x', messages: [null, 'x', { from: 5 }] } }] }] };
    expect(postSigned(payload)).toMatchObject({ kind: 'accept', messages: [] });
  });
});

describe('splitText', () => {
  it('keeps a text within the limit whole', () => {
    expect(splitText('hello there', 4096)).toEqual(['hello there']);
  });

  it('cuts at paragraph breaks, then spaces, every piece within the limit', () => {
    const text = `${'a'.repeat(60)}\n\n${'b '.repeat(40)}end`;
    const pieces = splitText(text, 64);
    expect(pieces[0]).toBe('a'.repeat(60));
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(64);
    expect(pieces.join(' ').replace(/\s+/g, ' ')).toBe(text.replace(/\s+/g, ' '));
  });

  it('cuts a text without spaces hard, never inside a surrogate pair', () => {
    const text = 'x'.repeat(9) + '😀'.repeat(10);
    const pieces = splitText(text, 10);
    expect(pieces.join('')).toBe(text);
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(10);
      expect(p).toBe(Buffer.from(p, 'utf8').toString('utf8')); // no lone surrogate
    }
  });

  it('gives nothing for blank text', () => {
    expect(splitText('  \n ', 4096)).toEqual([]);
  });
});
