import { telegramDelivery, telegramTextUpdate } from '@sa/testing';
import { PermanentSendError, ProviderConnection, RetryableSendError, WebhookOutcome, WebhookRequest } from './provider';
import { TELEGRAM_MAX_TEXT, readSendResponse, splitTelegramText, telegramProvider, telegramSecretMatches } from './telegram';

const SECRET = 'wh-secret_Abc123-xyz';
const TOKEN = '123456789:AAH-abcdefghijklmnopqrstuvwxyz012345';
const conn: ProviderConnection = { id: 'conn-1', settings: {}, secrets: { bot_token: TOKEN, webhook_secret: SECRET } };

function request(body: Buffer | string, headers: Record<string, string>, method: 'GET' | 'POST' = 'POST'): WebhookRequest {
  return { method, query: {}, headers, body: Buffer.isBuffer(body) ? body : Buffer.from(body), receivedAt: Date.now() };
}

function deliver(update: unknown, secret: string | null = SECRET): WebhookOutcome {
  const { body, headers } = telegramDelivery(update, secret);
  return telegramProvider.receive(conn, request(body, headers));
}

function accepted(outcome: WebhookOutcome) {
  if (outcome.kind !== 'accept') throw new Error(`expected accept, got ${outcome.status} ${outcome.body}`);
  return outcome.messages;
}

// Shaped as Telegram delivers them (Bot API "Update", "Message", "User", "Chat").
const privateText = {
  update_id: 836_542_101,
  message: {
    message_id: 1365,
    from: { id: 1_111_111, is_bot: false, first_name: 'Test', last_name: 'Lastname', username: 'testuser', language_code: 'en' },
    chat: { id: 1_111_111, first_name: 'Test', last_name: 'Lastname', username: 'testuser', type: 'private' },
    date: 1_441_645_532,
    text: 'Where is my order?',
  },
};

const supergroupTopicText = {
  update_id: 836_542_102,
  message: {
    message_id: 77,
    message_thread_id: 12,
    is_topic_message: true,
    from: { id: 2_222_222, is_bot: false, first_name: 'Grace' },
    chat: { id: -1_001_234_567_890, title: 'Support', is_forum: true, type: 'supergroup' },
    date: 1_700_000_000,
    text: 'Can I change the delivery address?',
  },
};

const sticker = {
  update_id: 836_542_103,
  message: {
    message_id: 1366,
    from: privateText.message.from,
    chat: privateText.message.chat,
    date: 1_441_645_540,
    sticker: { width: 512, height: 512, emoji: '👍', set_name: 'HotCherry', is_animated: false, is_video: false, type: 'regular', file_id: 'CAACAgIAAxkBAAIBZ2', file_unique_id: 'AgADtAIAAladvQo', file_size: 24_000 },
  },
};

describe('telegramProvider.receive: the secret token', () => {
  it('accepts the delivery carrying the secret', () => {
    expect(accepted(deliver(privateText))).toHaveLength(1);
  });

  it.each([
    ['missing', null],
    ['wrong', 'wh-secret_Abc123-xyZ'],
    ['truncated', SECRET.slice(0, -1)],
    ['empty', ''],
  ])('refuses a %s secret with 401 and keeps nothing', (_name, secret) => {
    const outcome = deliver(privateText, secret);
    expect(outcome).toMatchObject({ kind: 'respond', status: 401 });
  });

  it('refuses every delivery when the connection has no secret, even one without the header', () => {
    const open: ProviderConnection = { ...conn, secrets: { bot_token: TOKEN } };
    const { body, headers } = telegramDelivery(privateText, null);
    expect(telegramProvider.receive(open, request(body, headers))).toMatchObject({ kind: 'respond', status: 401 });
    expect(telegramProvider.receive(open, request(body, { ...headers, 'x-telegram-bot-api-secret-token': '' }))).toMatchObject({ kind: 'respond', status: 401 });
  });

  it('checks the secret before reading the body: a malformed body without the secret is 401, not 400', () => {
    expect(telegramProvider.receive(conn, request('{not json', { 'content-type': 'application/json' }))).toMatchObject({ kind: 'respond', status: 401 });
  });

  it('compares in constant time only equal secrets as equal', () => {
    expect(telegramSecretMatches(SECRET, SECRET)).toBe(true);
    expect(telegramSecretMatches(SECRET, `${SECRET}x`)).toBe(false);
    expect(telegramSecretMatches(undefined, SECRET)).toBe(false);
    expect(telegramSecretMatches(SECRET, undefined)).toBe(false);
  });
});

describe('telegramProvider.receive: parsing updates', () => {
  it('reads a private text message', () => {
    expect(accepted(deliver(privateText))).toEqual([
      {
        providerMessageId: '1111111:1365',
        conversationKey: '1111111',
        text: 'Where is my order?',
        sender: { id: '1111111', name: 'Test Lastname' },
        sentAt: 1_441_645_532_000,
        replyTo: { chat_id: 1_111_111, message_id: 1365 },
      },
    ]);
  });

  it('reads a forum topic message of a supergroup as its own conversation, replying in the topic', () => {
    const [message] = accepted(deliver(supergroupTopicText));
    expect(message).toMatchObject({
      providerMessageId: '-1001234567890:77',
      conversationKey: '-1001234567890:12',
      sender: { id: '2222222', name: 'Grace' },
      replyTo: { chat_id: -1_001_234_567_890, message_id: 77, message_thread_id: 12 },
    });
  });

  it('reads a basic group message; a thread id without is_topic_message (a reply thread) does not split the conversation', () => {
    const update = telegramTextUpdate({ text: 'hello all', chat: { id: -4_012_345, type: 'group' }, from: { id: 31, first_name: 'Lin', username: 'lin' }, messageId: 9 });
    update.message.message_thread_id = 5;
    const [message] = accepted(deliver(update));
    expect(message).toMatchObject({ providerMessageId: '-4012345:9', conversationKey: '-4012345', replyTo: { chat_id: -4_012_345, message_id: 9 } });
    expect(message.replyTo).not.toHaveProperty('message_thread_id');
  });

  it('names the sender by username when there is no usable first or last name', () => {
    const update = telegramTextUpdate({ text: 'hi', from: { id: 5, first_name: ' ', username: 'only_handle' } });
    expect(accepted(deliver(update))[0].sender).toEqual({ id: '5', name: 'only_handle' });
  });

  it('ignores messages from bots (200, nothing stored)', () => {
    const update = telegramTextUpdate({ text: 'I am a bot', chat: { id: -1_009_999, type: 'supergroup' }, from: { id: 777, is_bot: true, first_name: 'OtherBot' } });
    expect(accepted(deliver(update))).toEqual([]);
  });

  it('ignores a channel post forwarded automatically into its discussion group', () => {
    const update = telegramTextUpdate({ text: 'New release!', chat: { id: -1_008_888, type: 'supergroup' }, from: { id: 777_000, first_name: 'Telegram' } });
    update.message.is_automatic_forward = true;
    update.message.sender_chat = { id: -1_007_777, title: 'News', type: 'channel' };
    expect(accepted(deliver(update))).toEqual([]);
  });

  it('accepts a sticker (no text) with no messages', () => {
    expect(deliver(sticker)).toEqual({ kind: 'accept', messages: [] });
  });

  it('accepts a photo with a caption with no messages', () => {
    const photo = { update_id: 1, message: { ...sticker.message, sticker: undefined, photo: [{ file_id: 'x', file_unique_id: 'y', width: 90, height: 90 }], caption: 'what is this error?' } };
    expect(accepted(deliver(photo))).toEqual([]);
  });

  it('ignores an edited message (the first version was answered)', () => {
    const update = telegramTextUpdate({ text: 'Where is my order??', edited: true });
    expect(update).toHaveProperty('edited_message');
    expect(accepted(deliver(update))).toEqual([]);
  });

  it('ignores updates of other kinds (channel posts, callback queries, membership changes)', () => {
    const channelPost = { update_id: 2, channel_post: { message_id: 3, chat: { id: -1_001, type: 'channel', title: 'News' }, date: 1_700_000_000, text: 'post' } };
    const callback = { update_id: 3, callback_query: { id: '4382bfdwdsb323b2d9', from: privateText.message.from, chat_instance: '42', data: 'yes' } };
    expect(accepted(deliver(channelPost))).toEqual([]);
    expect(accepted(deliver(callback))).toEqual([]);
  });

  it('answers 400 to a body that is not JSON', () => {
    const outcome = telegramProvider.receive(conn, request('{"update_id": 1, "message": {', { 'x-telegram-bot-api-secret-token': SECRET }));
    expect(outcome).toMatchObject({ kind: 'respond', status: 400 });
  });

  it.each([
    ['an array', [privateText]],
    ['null', null],
    ['no update_id', { message: privateText.message }],
    ['a string update_id', { update_id: '1', message: privateText.message }],
    ['a message without a chat', { update_id: 1, message: { ...privateText.message, chat: undefined } }],
    ['a message with a string message_id', { update_id: 1, message: { ...privateText.message, message_id: '1365' } }],
  ])('answers 400 to JSON that is not an Update (%s)', (_name, body) => {
    expect(deliver(body)).toMatchObject({ kind: 'respond', status: 400 });
  });

  it('answers 413 to a body over 1 MB (after the secret check) and 405 to a GET', () => {
    const huge = telegramDelivery({ update_id: 1, message: { ...privateText.message, text: 'x'.repeat(1024 * 1024) } }, SECRET);
    expect(telegramProvider.receive(conn, request(huge.body, huge.headers))).toMatchObject({ kind: 'respond', status: 413 });
    expect(telegramProvider.receive(conn, request('', { 'x-telegram-bot-api-secret-token': SECRET }, 'GET'))).toMatchObject({ kind: 'respond', status: 405 });
  });
});

describe('splitTelegramText', () => {
  it('keeps a reply within the limit as one part', () => {
    expect(splitTelegramText('  Short answer.  ')).toEqual(['Short answer.']);
    expect(splitTelegramText('x'.repeat(TELEGRAM_MAX_TEXT))).toHaveLength(1);
    expect(splitTelegramText(' \n ')).toEqual([]);
  });

  it('splits at a paragraph break rather than mid-paragraph', () => {
    const first = `${'a'.repeat(60)}. ${'b'.repeat(30)}`;
    const second = 'c'.repeat(50);
    expect(splitTelegramText(`${first}\n\n${second}`, 100)).toEqual([first, second]);
  });

  it('splits after a sentence rather than after a later word when there is no line break', () => {
    const text = `${'a'.repeat(60)}. ${'b'.repeat(20)} ${'c'.repeat(30)}`;
    expect(splitTelegramText(text, 100)).toEqual([`${'a'.repeat(60)}.`, `${'b'.repeat(20)} ${'c'.repeat(30)}`]);
  });

  it('falls back to a word, then to a hard cut that never splits a surrogate pair', () => {
    expect(splitTelegramText(`${'a'.repeat(80)} ${'b'.repeat(80)}`, 100)).toEqual(['a'.repeat(80), 'b'.repeat(80)]);
    const emoji = '😀'.repeat(60); // 120 code units, no breaks
    const parts = splitTelegramText(emoji, 101);
    expect(parts.join('')).toBe(emoji);
    expect(parts.every((p) => p.length <= 101 && !/[\ud800-\udbff]$/.test(p))).toBe(true);
  });

  it('splits a long real-looking reply into parts under 4096 that keep every word, in order', () => {
    const paragraph = (i: number) => `Paragraph ${i}. ${'The order ships within two business days of payment. '.repeat(12).trim()}`;
    const text = Array.from({ length: 20 }, (_, i) => paragraph(i)).join('\n\n');
    const parts = splitTelegramText(text);
    expect(text.length).toBeGreaterThan(2 * TELEGRAM_MAX_TEXT);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expect(parts.every((p) => p.length <= TELEGRAM_MAX_TEXT)).toBe(true);
    expect(parts.every((p) => p.startsWith('Paragraph '))).toBe(true);
    expect(parts.join(' ').split(/\s+/)).toEqual(text.split(/\s+/));
  });
});

describe('readSendResponse', () => {
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers, body: Buffer.from(JSON.stringify(body)) });

  it('reads the sent message id', () => {
    expect(readSendResponse(json(200, { ok: true, result: { message_id: 42, date: 1, chat: { id: 1, type: 'private' } } }), TOKEN)).toEqual({ ok: true, messageId: 42 });
  });

  it('takes the flood-control wait from parameters.retry_after, else from Retry-After', () => {
    const fromBody = readSendResponse(json(429, { ok: false, error_code: 429, description: 'Too Many Requests: retry after 7', parameters: { retry_after: 7 } }, { 'retry-after': '99' }), TOKEN);
    const fromHeader = readSendResponse(json(429, { ok: false, error_code: 429, description: 'Too Many Requests' }, { 'retry-after': '3' }), TOKEN);
    const neither = readSendResponse({ status: 429, headers: {}, body: Buffer.from('slow down') }, TOKEN);
    for (const [r, ms] of [[fromBody, 7000], [fromHeader, 3000], [neither, null]] as const) {
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error).toBeInstanceOf(RetryableSendError);
        expect((r.error as RetryableSendError).retryAfterMs).toBe(ms);
      }
    }
  });

  it('retries 5xx with no wait and refuses other 4xx for good, without the token in the message', () => {
    const server = readSendResponse({ status: 502, headers: {}, body: Buffer.from('<html>Bad Gateway</html>') }, TOKEN);
    expect(server).toMatchObject({ ok: false, error: expect.any(RetryableSendError) });
    const echoed = readSendResponse(json(400, { ok: false, error_code: 400, description: `Bad Request: chat not found for /bot${TOKEN}/sendMessage` }), TOKEN);
    expect(echoed.ok).toBe(false);
    if (!echoed.ok) {
      expect(echoed.error).toBeInstanceOf(PermanentSendError);
      expect(echoed.error.message).toContain('chat not found');
      expect(echoed.error.message).not.toContain(TOKEN.split(':')[1]);
    }
  });

  it('names a group that became a supergroup, and refuses a 200 that is not a Bot API answer', () => {
    const migrated = readSendResponse(json(400, { ok: false, error_code: 400, description: 'Bad Request: group chat was upgraded to a supergroup chat', parameters: { migrate_to_chat_id: -1_001_234 } }), TOKEN);
    expect(!migrated.ok && migrated.error.message).toContain('-1001234');
    const html = readSendResponse({ status: 200, headers: {}, body: Buffer.from('<html>captive portal</html>') }, TOKEN);
    expect(html).toMatchObject({ ok: false, error: expect.any(PermanentSendError) });
  });
});
