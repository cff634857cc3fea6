import { guardedFetch, outboundPolicy } from '@sa/net-guard';
import { WhatsAppStandIn, startWhatsAppStandIn } from '@sa/testing';
import { PermanentSendError, ProviderConnection, RetryableSendError, SendContext } from './provider';
import { whatsappProvider } from './whatsapp';

// send() against a local stand-in of the Graph API's messages endpoint, through the real outbound
// guard (loopback is refused by default: the policy allows 127.0.0.0/8 and the stand-in's port).

const PHONE_NUMBER_ID = '106540352242922';
const ACCESS_TOKEN = 'EAAGm0PX4ZCpsBAKZC-test-access-token-0123456789';

let standIn: WhatsAppStandIn;
let ctx: SendContext;

const conn = (secrets: Partial<Record<string, string>> = {}, settings: Record<string, string> = {}): ProviderConnection => ({
  id: 'conn-1',
  settings: { phone_number_id: PHONE_NUMBER_ID, ...settings },
  secrets: { access_token: ACCESS_TOKEN, app_secret: 'app-secret', verify_token: 'verify', ...secrets } as Record<string, string>,
});

const replyTo = { phone_number_id: PHONE_NUMBER_ID, to: '16505551234', message_id: 'wamid.inbound-1' };

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the send to fail');
}

beforeEach(async () => {
  standIn = await startWhatsAppStandIn({ phoneNumberId: PHONE_NUMBER_ID, accessToken: ACCESS_TOKEN });
  const policy = outboundPolicy({ allowCidrs: ['127.0.0.0/8'], allowedPorts: [80, 443, Number(new URL(standIn.baseUrl).port)], timeoutMs: 5000 });
  ctx = { baseUrl: standIn.baseUrl, http: (url, init) => guardedFetch(url, policy, init) };
});

afterEach(async () => {
  await standIn.close();
});

describe('whatsappProvider.send', () => {
  it('sends a contextual text reply with the bearer token and returns the wamid', async () => {
    const { providerMessageId } = await whatsappProvider.send(conn(), replyTo, 'Yes, it comes in blue and green.', ctx);

    expect(standIn.sent).toEqual([{ id: providerMessageId, graphVersion: 'v21.0', to: '16505551234', text: 'Yes, it comes in blue and green.', previewUrl: false, contextMessageId: 'wamid.inbound-1' }]);
    expect(providerMessageId).toMatch(/^wamid\./);
    const [request] = standIn.requests;
    expect(request.path).toBe(`/v21.0/${PHONE_NUMBER_ID}/messages`);
    expect(request.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(request.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '16505551234',
      type: 'text',
      text: { body: 'Yes, it comes in blue and green.', preview_url: false },
      context: { message_id: 'wamid.inbound-1' },
    });
  });

  it('uses the configured graph_version', async () => {
    await whatsappProvider.send(conn({}, { graph_version: 'v23.0' }), replyTo, 'hi', ctx);
    expect(standIn.requests[0].path).toBe(`/v23.0/${PHONE_NUMBER_ID}/messages`);
  });

  it('splits a reply over 4096 characters into messages in order, only the first quoting the question', async () => {
    const paragraphs = Array.from({ length: 12 }, (_, i) => `Paragraph ${i + 1}: ${'lorem ipsum '.repeat(60).trim()}`);
    const text = paragraphs.join('\n\n');
    expect(text.length).toBeGreaterThan(2 * 4096);

    const { providerMessageId } = await whatsappProvider.send(conn(), replyTo, text, ctx);

    expect(standIn.sent.length).toBe(3);
    expect(standIn.sent.map((m) => m.contextMessageId)).toEqual(['wamid.inbound-1', null, null]);
    for (const m of standIn.sent) expect([...m.text].length).toBeLessThanOrEqual(4096);
    expect(standIn.sent.map((m) => m.text).join('\n\n')).toBe(text);
    expect(providerMessageId).toBe(standIn.sent[0].id);
  });

  it('maps 429 with code 130429 to RetryableSendError with Retry-After', async () => {
    standIn.rateLimitNext(1, 7);
    const err = await failure(whatsappProvider.send(conn(), replyTo, 'hello', ctx));

    expect(err).toBeInstanceOf(RetryableSendError);
    expect((err as RetryableSendError).retryAfterMs).toBe(7000);
    expect(err.message).toContain('130429');
    expect(standIn.sent).toEqual([]);
    // The limit passed: the same send goes through.
    await whatsappProvider.send(conn(), replyTo, 'hello', ctx);
    expect(standIn.sent.map((m) => m.text)).toEqual(['hello']);
  });

  it('maps a rate-limit code on a 400 (pair rate, 131056) to RetryableSendError without Retry-After', async () => {
    standIn.failNext(1, { status: 400, code: 131056, message: '(#131056) (Business Account, Consumer Account) pair rate limit hit' });
    const err = await failure(whatsappProvider.send(conn(), replyTo, 'hello', ctx));
    expect(err).toBeInstanceOf(RetryableSendError);
    expect((err as RetryableSendError).retryAfterMs).toBeNull();
  });

  it.each([
    ['a 500', { status: 500, code: 2, message: 'Service temporarily unavailable' }],
    ['code 131000 on a 400', { status: 400, code: 131000, message: 'Something went wrong' }],
  ])('maps %s to RetryableSendError', async (_, fail) => {
    standIn.failNext(1, fail);
    expect(await failure(whatsappProvider.send(conn(), replyTo, 'hello', ctx))).toBeInstanceOf(RetryableSendError);
  });

  it('maps a wrong token (401, code 190) to PermanentSendError whose message holds no token', async () => {
    const wrong = 'EAAGm0PX4ZCpsBAKZC-a-revoked-token-9876543210';
    const err = await failure(whatsappProvider.send(conn({ access_token: wrong }), replyTo, 'hello', ctx));

    expect(err).toBeInstanceOf(PermanentSendError);
    expect(err.message).toContain('190');
    expect(err.message).not.toContain(wrong);
    expect(err.message).not.toContain(ACCESS_TOKEN);
    expect(standIn.requests[0].status).toBe(401);
  });

  it('takes the token out of an error message that echoes it', async () => {
    standIn.failNext(1, { status: 400, code: 100, message: `(#100) Invalid parameter near ${ACCESS_TOKEN}` });
    const err = await failure(whatsappProvider.send(conn(), replyTo, 'hello', ctx));
    expect(err).toBeInstanceOf(PermanentSendError);
    expect(err.message).toContain('[redacted]');
    expect(err.message).not.toContain(ACCESS_TOKEN);
  });

  it('maps another 4xx (a phone number id the token cannot use) to PermanentSendError', async () => {
    const err = await failure(whatsappProvider.send(conn(), { ...replyTo, phone_number_id: '999999999999999' }, 'hello', ctx));
    expect(err).toBeInstanceOf(PermanentSendError);
    expect(err.message).toMatch(/HTTP 400, code 100\/33/);
  });

  it('refuses a reply with no recipient or a bad phone number id before calling the API', async () => {
    await expect(whatsappProvider.send(conn(), { ...replyTo, to: '' }, 'hello', ctx)).rejects.toBeInstanceOf(PermanentSendError);
    await expect(whatsappProvider.send(conn(), { ...replyTo, phone_number_id: '../../me' }, 'hello', ctx)).rejects.toBeInstanceOf(PermanentSendError);
    await expect(whatsappProvider.send(conn({}, { graph_version: 'v1/../..' }), replyTo, 'hello', ctx)).rejects.toBeInstanceOf(PermanentSendError);
    await expect(whatsappProvider.send(conn({ access_token: '' }), replyTo, 'hello', ctx)).rejects.toBeInstanceOf(PermanentSendError);
    expect(standIn.requests).toEqual([]);
  });

  it('maps a destination the outbound guard refuses to PermanentSendError, a dead server to RetryableSendError', async () => {
    const strict: SendContext = { baseUrl: standIn.baseUrl, http: (url, init) => guardedFetch(url, outboundPolicy(), init) };
    expect(await failure(whatsappProvider.send(conn(), replyTo, 'hello', strict))).toBeInstanceOf(PermanentSendError);

    await standIn.close();
    expect(await failure(whatsappProvider.send(conn(), replyTo, 'hello', ctx))).toBeInstanceOf(RetryableSendError);
    standIn = await startWhatsAppStandIn({ phoneNumberId: PHONE_NUMBER_ID, accessToken: ACCESS_TOKEN });
  });
});
