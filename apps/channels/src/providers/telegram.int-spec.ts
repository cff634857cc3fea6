import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedFetch, outboundPolicy } from '@sa/net-guard';
import { TelegramStandIn, startTelegramStandIn, telegramDelivery, telegramTextUpdate } from '@sa/testing';
import { PermanentSendError, ProviderConnection, RetryableSendError, SendContext } from './provider';
import { TELEGRAM_MAX_TEXT, telegramProvider } from './telegram';

// send() against a local Bot API stand-in, through the real outbound guard (loopback allowed).

const TOKEN = '7012345678:AAF-kx9Qw3ErTyUiOpAsDfGhJkLzXcVbNm0';
const SECRET_PART = TOKEN.split(':')[1];
const WEBHOOK_SECRET = 'hook_secret-42';

let standIn: TelegramStandIn;
let ctx: SendContext;

function connection(token = TOKEN): ProviderConnection {
  return { id: 'tg-1', settings: {}, secrets: { bot_token: token, webhook_secret: WEBHOOK_SECRET } };
}

/** SendContext as the service builds it: every call through guardedFetch under an outbound policy. */
function sendContext(baseUrl: string, port: number): SendContext {
  const policy = outboundPolicy({ allowCidrs: ['127.0.0.0/8'], allowedPorts: [80, 443, port], timeoutMs: 5_000 });
  return {
    baseUrl,
    http: async (url, init) => {
      const res = await guardedFetch(url, policy, { method: init.method, headers: init.headers, body: init.body });
      return { status: res.status, headers: res.headers, body: res.body };
    },
  };
}

/** The replyTo receive() stores for a person's message in a private chat. */
function replyToOf(update: unknown): Record<string, unknown> {
  const { body, headers } = telegramDelivery(update, WEBHOOK_SECRET);
  const outcome = telegramProvider.receive(connection(), { method: 'POST', query: {}, headers, body, receivedAt: Date.now() });
  if (outcome.kind !== 'accept' || outcome.messages.length !== 1) throw new Error('expected one inbound message');
  return outcome.messages[0].replyTo;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected send() to fail');
}

beforeEach(async () => {
  standIn = await startTelegramStandIn({ token: TOKEN });
  ctx = sendContext(standIn.baseUrl, standIn.port);
});

afterEach(async () => {
  await standIn.close();
});

describe('telegramProvider.send', () => {
  it('replies to the message it answers, in its chat, and returns "<chat id>:<message id>"', async () => {
    const replyTo = replyToOf(telegramTextUpdate({ text: 'Where is my order?', from: { id: 5550001, first_name: 'Ada' }, messageId: 31 }));
    const result = await telegramProvider.send(connection(), replyTo, 'It ships tomorrow.', ctx);

    expect(standIn.sent).toHaveLength(1);
    const [{ params, message }] = standIn.sent;
    expect(params).toEqual({ chat_id: 5550001, text: 'It ships tomorrow.', reply_parameters: { message_id: 31, allow_sending_without_reply: true } });
    expect(result).toEqual({ providerMessageId: `5550001:${message.message_id}` });
    expect(standIn.requests[0].headers['content-type']).toBe('application/json');
  });

  it('answers a forum topic in that topic', async () => {
    const replyTo = replyToOf(telegramTextUpdate({ text: 'hi', chat: { id: -1_001_500_600, type: 'supergroup', is_forum: true }, messageId: 8, messageThreadId: 4 }));
    await telegramProvider.send(connection(), replyTo, 'Hello!', ctx);
    expect(standIn.sent[0].params).toMatchObject({ chat_id: -1_001_500_600, message_thread_id: 4, reply_parameters: { message_id: 8 } });
  });

  it('turns flood control (429) into a RetryableSendError with the retry_after wait, sending nothing', async () => {
    standIn.rateLimitNext(1, 17);
    const err = await rejection(telegramProvider.send(connection(), { chat_id: 42, message_id: 1 }, 'hello', ctx));

    expect(err).toBeInstanceOf(RetryableSendError);
    expect((err as RetryableSendError).retryAfterMs).toBe(17_000);
    expect(err.message).toContain('429');
    expect(standIn.sent).toHaveLength(0);
    expect(standIn.requests.map((r) => r.status)).toEqual([429]);
  });

  it('turns a 5xx into a RetryableSendError without a wait', async () => {
    standIn.failNext(1, 502);
    const err = await rejection(telegramProvider.send(connection(), { chat_id: 42, message_id: 1 }, 'hello', ctx));
    expect(err).toBeInstanceOf(RetryableSendError);
    expect((err as RetryableSendError).retryAfterMs).toBeNull();
  });

  it('turns a wrong token (401) into a PermanentSendError that does not contain the token', async () => {
    const wrong = '7012345678:AAF-revokedrevokedrevokedrevoked12';
    const err = await rejection(telegramProvider.send(connection(wrong), { chat_id: 42, message_id: 1 }, 'hello', ctx));

    expect(err).toBeInstanceOf(PermanentSendError);
    expect(err.message).toContain('401');
    expect(err.message).toContain('Unauthorized');
    expect(err.message).not.toContain(wrong.split(':')[1]);
    expect(JSON.stringify(err)).not.toContain(wrong.split(':')[1]);
    expect(standIn.requests).toEqual([expect.objectContaining({ method: 'sendMessage', tokenOk: false, status: 401 })]);
  });

  it('turns a chat that blocked the bot (403) into a PermanentSendError', async () => {
    standIn.blockedChats.add('42');
    const err = await rejection(telegramProvider.send(connection(), { chat_id: 42, message_id: 1 }, 'hello', ctx));
    expect(err).toBeInstanceOf(PermanentSendError);
    expect(err.message).toContain('blocked');
  });

  it('fails retryably, without the token in the message, when Telegram cannot be reached', async () => {
    await standIn.close();
    const err = await rejection(telegramProvider.send(connection(), { chat_id: 42, message_id: 1 }, 'hello', ctx));
    expect(err).toBeInstanceOf(RetryableSendError);
    expect(err.message).not.toContain(SECRET_PART);
    standIn = await startTelegramStandIn({ token: TOKEN }); // for afterEach
  });

  it('refuses for good, without the token, a base URL the outbound policy blocks', async () => {
    const blocked: SendContext = { ...ctx, http: sendContext('', 0).http, baseUrl: 'http://10.0.0.1:8081' };
    const err = await rejection(telegramProvider.send(connection(), { chat_id: 42 }, 'hello', blocked));
    expect(err).toBeInstanceOf(PermanentSendError);
    expect(err.message).not.toContain(SECRET_PART);
  });

  it('refuses for good, without the token, a base URL that redirects in a loop (the guard quotes the URL)', async () => {
    const loop = http.createServer((req, res) => {
      res.writeHead(307, { location: req.url ?? '/' });
      res.end();
    });
    await new Promise<void>((resolve) => loop.listen(0, '127.0.0.1', resolve));
    const port = (loop.address() as AddressInfo).port;
    try {
      const err = await rejection(telegramProvider.send(connection(), { chat_id: 42 }, 'hello', sendContext(`http://127.0.0.1:${port}`, port)));
      expect(err).toBeInstanceOf(PermanentSendError);
      expect(err.message).toContain('redirects');
      expect(err.message).toContain('/bot<token>/sendMessage');
      expect(err.message).not.toContain(SECRET_PART);
      expect(Object.values(err)).not.toContainEqual(expect.stringContaining(SECRET_PART));
    } finally {
      await new Promise((resolve) => loop.close(resolve));
    }
  });

  it('splits a reply over 4096 characters into several messages, all sent in order, and returns the first id', async () => {
    const paragraphs = Array.from({ length: 20 }, (_, i) => `Step ${i + 1}. ${'Open the settings page and check the delivery address field. '.repeat(10).trim()}`);
    const text = paragraphs.join('\n\n');
    expect(text.length).toBeGreaterThan(2 * TELEGRAM_MAX_TEXT);

    const result = await telegramProvider.send(connection(), { chat_id: 42, message_id: 7 }, text, ctx);

    expect(standIn.sent.length).toBeGreaterThanOrEqual(3);
    expect(standIn.requests.every((r) => r.status === 200)).toBe(true);
    expect(standIn.sent.every(({ params }) => params.text.length <= TELEGRAM_MAX_TEXT && params.chat_id === 42)).toBe(true);
    expect(standIn.sent.map(({ params }) => params.text).join('\n\n')).toBe(text);
    // Only the first part quotes the person's message.
    expect(standIn.sent.map(({ params }) => params.reply_parameters?.message_id ?? null)).toEqual([7, ...standIn.sent.slice(1).map(() => null)]);
    expect(result).toEqual({ providerMessageId: `42:${standIn.sent[0].message.message_id}` });
  });

  it('retries a later part in place after a short flood-control wait, so no part is sent twice', async () => {
    const text = `${'First part. '.repeat(300).trim()}\n\n${'Second part. '.repeat(300).trim()}`;
    standIn.rateLimitNext(1, 1, { after: 1 });

    const started = Date.now();
    const result = await telegramProvider.send(connection(), { chat_id: 42, message_id: 7 }, text, ctx);

    expect(standIn.requests.map((r) => r.status)).toEqual([200, 429, 200]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(standIn.sent.map(({ params }) => params.text.split(' ')[0])).toEqual(['First', 'Second']);
    expect(result).toEqual({ providerMessageId: `42:${standIn.sent[0].message.message_id}` });
  });

  it('gives up on a later part after a long flood-control wait, saying which part failed', async () => {
    const text = `${'First part. '.repeat(300).trim()}\n\n${'Second part. '.repeat(300).trim()}`;
    standIn.rateLimitNext(1, 30, { after: 1 });

    const err = await rejection(telegramProvider.send(connection(), { chat_id: 42, message_id: 7 }, text, ctx));

    expect(err).toBeInstanceOf(RetryableSendError);
    expect((err as RetryableSendError).retryAfterMs).toBe(30_000);
    expect(err.message).toContain('part 2 of 2');
    expect(standIn.sent).toHaveLength(1);
  });

  it('sends nothing for an empty reply', async () => {
    await expect(telegramProvider.send(connection(), { chat_id: 42, message_id: 1 }, '  \n ', ctx)).resolves.toEqual({ providerMessageId: null });
    expect(standIn.requests).toHaveLength(0);
  });

  it('refuses a reply target without a chat id before calling Telegram', async () => {
    await expect(telegramProvider.send(connection(), { message_id: 1 }, 'hello', ctx)).rejects.toBeInstanceOf(PermanentSendError);
    expect(standIn.requests).toHaveLength(0);
  });
});
