import { guardedFetch, outboundPolicy } from '@sa/net-guard';
import { SlackStandIn, startSlackStandIn } from '@sa/testing';
import { PermanentSendError, ProviderConnection, RetryableSendError, SendContext } from './provider';
import { slackProvider } from './slack';

// send() against the local Slack stand-in, through the real outbound guard (loopback allowed).

const TOKEN = 'xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy';
const CHANNEL = 'C0LAN2Q65';

let slack: SlackStandIn;
let ctx: SendContext;

beforeAll(async () => {
  slack = await startSlackStandIn({ botToken: TOKEN, channels: [CHANNEL, 'D024BE91L'] });
  const policy = outboundPolicy({ allowCidrs: ['127.0.0.0/8'], allowedPorts: [80, 443, slack.port] });
  ctx = {
    baseUrl: slack.baseUrl,
    http: async (url, init) => {
      const res = await guardedFetch(url, policy, { method: init.method, headers: init.headers, body: init.body });
      return { status: res.status, headers: res.headers, body: res.body };
    },
  };
});

afterAll(() => slack.close());

beforeEach(() => {
  slack.posts.length = 0;
  slack.requests.length = 0;
});

function connection(token = TOKEN): ProviderConnection {
  return { id: 'conn-1', settings: {}, secrets: { bot_token: token, signing_secret: 'secret' } };
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the send to fail');
}

describe('slackProvider.send', () => {
  it('posts the reply in the thread with the bot token, and returns channel:ts', async () => {
    const sent = await slackProvider.send(connection(), { channel: CHANNEL, thread_ts: '1717243200.000100' }, 'We ship to Norway in 3-5 days.', ctx);
    expect(slack.posts).toEqual([{ channel: CHANNEL, text: 'We ship to Norway in 3-5 days.', thread_ts: '1717243200.000100', ts: expect.stringMatching(/^\d+\.\d{6}$/) }]);
    expect(sent).toEqual({ providerMessageId: `${CHANNEL}:${slack.posts[0].ts}` });
    const [req] = slack.requests;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/api/chat.postMessage');
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(req.body).toEqual({ channel: CHANNEL, text: 'We ship to Norway in 3-5 days.', thread_ts: '1717243200.000100' });
  });

  it('escapes Slack’s control characters in the reply', async () => {
    await slackProvider.send(connection(), { channel: CHANNEL, thread_ts: '1.000001' }, 'Tell <!channel>: 1 < 2 & 3 > 2', ctx);
    expect(slack.posts[0].text).toBe('Tell &lt;!channel&gt;: 1 &lt; 2 &amp; 3 &gt; 2');
  });

  it('posts a long reply as pieces of at most 4,000 characters, in order, in the same thread', async () => {
    const paragraphs = Array.from({ length: 5 }, (_, i) => `Paragraph ${i}: ${'lorem ipsum '.repeat(250).trim()}.`);
    const sent = await slackProvider.send(connection(), { channel: CHANNEL, thread_ts: '1717243200.000100' }, paragraphs.join('\n\n'), ctx);
    expect(slack.posts.length).toBeGreaterThan(1);
    for (const post of slack.posts) {
      expect(post.text.length).toBeLessThanOrEqual(4000);
      expect(post.thread_ts).toBe('1717243200.000100');
    }
    expect(slack.posts.map((p) => p.text).join('\n\n')).toBe(paragraphs.join('\n\n'));
    expect(sent.providerMessageId).toBe(`${CHANNEL}:${slack.posts[0].ts}`);
  });

  it('turns HTTP 429 into a RetryableSendError with Retry-After, then posts once the limit has passed', async () => {
    slack.rateLimitNext(1, 30);
    const err = await failure(slackProvider.send(connection(), { channel: CHANNEL, thread_ts: '1.000001' }, 'hello', ctx));
    expect(err).toBeInstanceOf(RetryableSendError);
    expect((err as RetryableSendError).retryAfterMs).toBe(30_000);
    expect(slack.requests[0].status).toBe(429);
    expect(slack.posts).toEqual([]);
    await slackProvider.send(connection(), { channel: CHANNEL, thread_ts: '1.000001' }, 'hello', ctx);
    expect(slack.posts).toHaveLength(1);
  });

  it('turns a 5xx into a RetryableSendError', async () => {
    slack.failNext(1, 503);
    const err = await failure(slackProvider.send(connection(), { channel: CHANNEL, thread_ts: '1.000001' }, 'hello', ctx));
    expect(err).toBeInstanceOf(RetryableSendError);
    expect(err.message).toContain('503');
  });

  it('turns an ok:false ratelimited (or internal_error) into a RetryableSendError', async () => {
    slack.refuseNext(1, 'ratelimited');
    const limited = await failure(slackProvider.send(connection(), { channel: CHANNEL, thread_ts: '1.000001' }, 'hello', ctx));
    expect(limited).toBeInstanceOf(RetryableSendError);
    expect(limited.message).toContain('ratelimited');
    slack.refuseNext(1, 'internal_error');
    expect(await failure(slackProvider.send(connection(), { channel: CHANNEL, thread_ts: '1.000001' }, 'hello', ctx))).toBeInstanceOf(RetryableSendError);
    expect(slack.posts).toEqual([]);
  });

  it.each(['not_in_channel', 'account_inactive', 'token_revoked', 'not_authed', 'msg_too_long'])('turns %s into a PermanentSendError', async (code) => {
    slack.refuseNext(1, code);
    const err = await failure(slackProvider.send(connection(), { channel: CHANNEL, thread_ts: '1.000001' }, 'hello', ctx));
    expect(err).toBeInstanceOf(PermanentSendError);
    expect(err.message).toContain(code);
  });

  it('turns invalid_auth into a PermanentSendError that does not carry the token', async () => {
    const wrong = 'xoxb-17653672481-19874698323-WRONGWRONGWRONG';
    const err = await failure(slackProvider.send(connection(wrong), { channel: CHANNEL, thread_ts: '1.000001' }, 'hello', ctx));
    expect(err).toBeInstanceOf(PermanentSendError);
    expect(err.message).toContain('invalid_auth');
    expect(err.message).not.toContain(wrong);
    expect(err.message).not.toContain('xoxb-');
    expect(slack.requests[0].answer).toEqual({ ok: false, error: 'invalid_auth' });
  });

  it('turns channel_not_found into a PermanentSendError', async () => {
    const err = await failure(slackProvider.send(connection(), { channel: 'CUNKNOWN', thread_ts: '1.000001' }, 'hello', ctx));
    expect(err).toBeInstanceOf(PermanentSendError);
    expect(err.message).toContain('channel_not_found');
  });

  it('refuses a conversation without a channel and an empty reply without calling Slack', async () => {
    await expect(slackProvider.send(connection(), { thread_ts: '1.000001' }, 'hello', ctx)).rejects.toBeInstanceOf(PermanentSendError);
    await expect(slackProvider.send(connection(), { channel: CHANNEL }, '  ', ctx)).rejects.toBeInstanceOf(PermanentSendError);
    expect(slack.requests).toEqual([]);
  });

  it('answers auth.test for the bot token (the stand-in, for connection checks)', async () => {
    const res = await ctx.http(`${slack.baseUrl}/api/auth.test`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(JSON.parse(res.body.toString('utf8'))).toMatchObject({ ok: true, team_id: 'T0STANDIN', user_id: 'U0STANDBOT', bot_id: 'B0STANDBOT' });
  });

  it('is refused by the guard when loopback is not allowed: a PermanentSendError, nothing sent', async () => {
    const guarded: SendContext = {
      baseUrl: slack.baseUrl,
      http: async (url, init) => {
        const res = await guardedFetch(url, outboundPolicy({ allowedPorts: [slack.port] }), { method: init.method, headers: init.headers, body: init.body });
        return { status: res.status, headers: res.headers, body: res.body };
      },
    };
    const err = await failure(slackProvider.send(connection(), { channel: CHANNEL, thread_ts: '1.000001' }, 'hello', guarded));
    expect(err).toBeInstanceOf(PermanentSendError);
    expect(err.message).not.toContain(TOKEN);
    expect(slack.requests).toEqual([]);
  });
});
