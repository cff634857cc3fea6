import { SlackDelivery, signedSlackDelivery, slackAppMentionEvent, slackEventDelivery, slackMessageEvent, slackSignature, slackUrlVerification } from '@sa/testing';
import { ProviderConnection, WebhookRequest } from './provider';
import { escapeSlackText, readableText, slackProvider, splitForSlack } from './slack';

const SECRET = 'slack-signing-secret-8f2c1d';
const BOT = 'U0STANDBOT';
const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const NOW_S = NOW / 1000;

function connection(settings: Record<string, string> = {}): ProviderConnection {
  return { id: 'conn-1', settings: { bot_user_id: BOT, ...settings }, secrets: { bot_token: 'xoxb-1-2-abc', signing_secret: SECRET } };
}

function request(delivery: SlackDelivery, receivedAt = NOW, headers: Record<string, string> = delivery.headers): WebhookRequest {
  return { method: 'POST', query: {}, headers, body: delivery.body, receivedAt };
}

/** A delivery of `event` signed at NOW. */
const deliver = (event: Record<string, unknown>, opts: Parameters<typeof slackEventDelivery>[2] = {}) => slackEventDelivery(SECRET, event, { timestamp: NOW_S, ...opts });

function messagesOf(conn: ProviderConnection, delivery: SlackDelivery) {
  const outcome = slackProvider.receive(conn, request(delivery));
  if (outcome.kind !== 'accept') throw new Error(`expected accept, got ${outcome.status} ${outcome.body}`);
  return outcome.messages;
}

describe('slackProvider.receive: the signature', () => {
  const event = slackMessageEvent({ channel: 'D024BE91L', user: 'U2147483697', text: 'Hello' });

  it('accepts a delivery signed with the signing secret within the window', () => {
    expect(messagesOf(connection(), deliver(event))).toHaveLength(1);
  });

  it('accepts the edges of the 5-minute window, either side', () => {
    expect(slackProvider.receive(connection(), request(deliver(event), NOW + 300_000)).kind).toBe('accept');
    expect(slackProvider.receive(connection(), request(deliver(event), NOW - 300_000)).kind).toBe('accept');
  });

  it.each([
    ['without a signature', (d: SlackDelivery) => ({ ...d.headers, 'x-slack-signature': '' })],
    ['without a timestamp', (d: SlackDelivery) => Object.fromEntries(Object.entries(d.headers).filter(([k]) => k !== 'x-slack-request-timestamp'))],
    ['with another secret’s signature', (d: SlackDelivery) => ({ ...d.headers, 'x-slack-signature': slackSignature('another-secret', NOW_S, d.body) })],
    ['with a signature of other bytes', (d: SlackDelivery) => ({ ...d.headers, 'x-slack-signature': slackSignature(SECRET, NOW_S, Buffer.concat([d.body, Buffer.from(' ')])) })],
    ['with the signature over another timestamp', (d: SlackDelivery) => ({ ...d.headers, 'x-slack-request-timestamp': String(NOW_S - 1) })],
    ['with a v1 signature', (d: SlackDelivery) => ({ ...d.headers, 'x-slack-signature': d.headers['x-slack-signature'].replace('v0=', 'v1=') })],
    ['with a truncated signature', (d: SlackDelivery) => ({ ...d.headers, 'x-slack-signature': d.headers['x-slack-signature'].slice(0, -2) })],
    ['with a non-numeric timestamp', (d: SlackDelivery) => ({ ...d.headers, 'x-slack-request-timestamp': `${NOW_S}abc` })],
  ])('refuses a delivery %s with 401', (_name, headers) => {
    const d = deliver(event);
    expect(slackProvider.receive(connection(), request(d, NOW, headers(d)))).toEqual({ kind: 'respond', status: 401, body: 'invalid signature', contentType: 'text/plain; charset=utf-8' });
  });

  it('refuses a delivery signed 6 minutes ago (a replay) and one dated 6 minutes ahead', () => {
    const stale = slackEventDelivery(SECRET, event, { timestamp: NOW_S - 360 });
    const future = slackEventDelivery(SECRET, event, { timestamp: NOW_S + 360 });
    expect(slackProvider.receive(connection(), request(stale))).toMatchObject({ kind: 'respond', status: 401 });
    expect(slackProvider.receive(connection(), request(future))).toMatchObject({ kind: 'respond', status: 401 });
  });

  it('refuses everything when the connection has no signing secret', () => {
    const conn = { ...connection(), secrets: { bot_token: 'xoxb-1-2-abc' } };
    expect(slackProvider.receive(conn, request(slackEventDelivery('', event, { timestamp: NOW_S })))).toMatchObject({ kind: 'respond', status: 401 });
  });

  it('refuses a body over 1 MB with 413, signed or not', () => {
    const big = signedSlackDelivery(SECRET, JSON.stringify({ type: 'event_callback', pad: 'x'.repeat(1024 * 1024) }), { timestamp: NOW_S });
    expect(slackProvider.receive(connection(), request(big))).toMatchObject({ kind: 'respond', status: 413 });
  });

  it('answers 405 to anything but POST', () => {
    expect(slackProvider.receive(connection(), { ...request(deliver(event)), method: 'GET' })).toMatchObject({ kind: 'respond', status: 405 });
  });
});

describe('slackProvider.receive: url_verification and malformed bodies', () => {
  it('answers the challenge as plain text', () => {
    const handshake = slackUrlVerification(SECRET, '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P', { timestamp: NOW_S });
    expect(slackProvider.receive(connection(), request(handshake))).toEqual({
      kind: 'respond',
      status: 200,
      body: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
      contentType: 'text/plain; charset=utf-8',
    });
  });

  it('refuses an unsigned url_verification', () => {
    const handshake = slackUrlVerification('not-the-secret', 'abc', { timestamp: NOW_S });
    expect(slackProvider.receive(connection(), request(handshake))).toMatchObject({ kind: 'respond', status: 401 });
  });

  it.each([
    ['malformed JSON', '{"type":"event_callback",'],
    ['a JSON array', '[1,2]'],
    ['a url_verification without a challenge', '{"type":"url_verification"}'],
    ['an event_callback without an event', '{"type":"event_callback","team_id":"T0STANDIN"}'],
  ])('answers 400 to %s under a valid signature', (_name, body) => {
    expect(slackProvider.receive(connection(), request(signedSlackDelivery(SECRET, body, { timestamp: NOW_S })))).toMatchObject({ kind: 'respond', status: 400 });
  });

  it('accepts other envelope types with nothing to answer', () => {
    const limited = signedSlackDelivery(SECRET, { token: 'x', team_id: 'T0STANDIN', minute_rate_limited: 1518467820, api_app_id: 'A0STANDAPP', type: 'app_rate_limited' }, { timestamp: NOW_S });
    expect(slackProvider.receive(connection(), request(limited))).toEqual({ kind: 'accept', messages: [] });
  });
});

describe('slackProvider.receive: messages', () => {
  it('reads a direct message: the DM is one conversation, answered in the DM (not in a thread)', () => {
    const event = slackMessageEvent({ channel: 'D024BE91L', user: 'U2147483697', text: 'Do you ship to Norway?', ts: '1717243200.000100' });
    expect(messagesOf(connection(), deliver(event))).toEqual([
      {
        providerMessageId: 'D024BE91L:1717243200.000100',
        conversationKey: 'D024BE91L',
        text: 'Do you ship to Norway?',
        sender: { id: 'U2147483697' },
        sentAt: 1717243200000,
        replyTo: { channel: 'D024BE91L' },
      },
    ]);
    // The next DM continues the same conversation.
    const next = slackMessageEvent({ channel: 'D024BE91L', user: 'U2147483697', text: 'And to Finland?', ts: '1717243260.000100' });
    expect(messagesOf(connection(), deliver(next))[0]).toMatchObject({ conversationKey: 'D024BE91L', replyTo: { channel: 'D024BE91L' } });
    // A reply inside a thread of the DM stays in that thread.
    const threaded = slackMessageEvent({ channel: 'D024BE91L', user: 'U2147483697', text: 'Thanks', ts: '1717243300.000100', thread_ts: '1717243200.000100' });
    expect(messagesOf(connection(), deliver(threaded))[0]).toMatchObject({ conversationKey: 'D024BE91L:1717243200.000100', replyTo: { channel: 'D024BE91L', thread_ts: '1717243200.000100' } });
  });

  it('keeps a thread reply in its thread', () => {
    const event = slackMessageEvent({ channel: 'C0LAN2Q65', channel_type: 'channel', user: 'U1', text: 'and to Finland?', ts: '1717243300.000200', thread_ts: '1717243200.000100' });
    const [m] = messagesOf(connection(), deliver(event));
    expect(m.providerMessageId).toBe('C0LAN2Q65:1717243300.000200');
    expect(m.conversationKey).toBe('C0LAN2Q65:1717243200.000100');
    expect(m.replyTo).toEqual({ channel: 'C0LAN2Q65', thread_ts: '1717243200.000100' });
  });

  it('gives a mention the same id as the message event of the same post, and strips the mention', () => {
    const post = { channel: 'C0LAN2Q65', user: 'U061F7AUR', text: `<@${BOT}> is it everything a river should be?`, ts: '1515449522.000016' };
    const asMessage = messagesOf(connection(), deliver(slackMessageEvent({ ...post, channel_type: 'channel' })));
    const asMention = messagesOf(connection(), deliver(slackAppMentionEvent(post)));
    expect(asMention).toEqual(asMessage);
    expect(asMention[0]).toMatchObject({ providerMessageId: 'C0LAN2Q65:1515449522.000016', text: 'is it everything a river should be?' });
  });

  it('strips the mention wherever it is, in both spellings, and unescapes Slack’s entities', () => {
    expect(readableText(`hi <@${BOT}> there`, BOT)).toBe('hi there');
    expect(readableText(`<@${BOT}|support> is 1 &lt; 2 &amp;&amp; 3 &gt; 2?`, BOT)).toBe('is 1 < 2 && 3 > 2?');
    expect(readableText('<@U999> said hi', BOT)).toBe('<@U999> said hi');
  });

  it('learns its own user id from the bot authorization when no setting names it', () => {
    const conn = { ...connection(), settings: {} };
    const [m] = messagesOf(conn, deliver(slackAppMentionEvent({ channel: 'C1', user: 'U1', text: '<@UAUTHBOT> hello' }), { botUserId: 'UAUTHBOT' }));
    expect(m.text).toBe('hello');
    expect(messagesOf(conn, deliver(slackMessageEvent({ channel: 'D1', user: 'UAUTHBOT', text: 'my own reply' }), { botUserId: 'UAUTHBOT' }))).toEqual([]);
  });

  it.each([
    ['the bot’s own message', { user: BOT }],
    ['a message with a bot_id', { bot_id: 'B0STANDBOT' }],
    ['a bot_message', { subtype: 'bot_message' }],
    ['an edit', { subtype: 'message_changed' }],
    ['a deletion', { subtype: 'message_deleted' }],
    ['a channel join', { subtype: 'channel_join' }],
    ['a message of no person', { user: undefined }],
    ['a message that is only the bot’s mention', { text: `<@${BOT}>` }],
    ['a message of an unknown kind of channel', { channel_type: 'app_home' }],
  ])('ignores %s', (_name, extra) => {
    const event = { ...slackMessageEvent({ channel: 'D024BE91L', user: 'U1', text: 'hello' }), ...extra };
    expect(messagesOf(connection(), deliver(event))).toEqual([]);
  });

  it('ignores other event types', () => {
    expect(messagesOf(connection(), deliver({ type: 'reaction_added', user: 'U1', reaction: 'thumbsup', item: { type: 'message', channel: 'C1', ts: '1.2' }, event_ts: '1.3' }))).toEqual([]);
  });

  it('ignores events of another workspace when team_id is set, and takes its own', () => {
    const event = slackMessageEvent({ channel: 'D1', user: 'U1', text: 'hello' });
    expect(messagesOf(connection({ team_id: 'T0STANDIN' }), deliver(event, { teamId: 'TOTHER' }))).toEqual([]);
    expect(messagesOf(connection({ team_id: 'T0STANDIN' }), deliver(event, { teamId: 'T0STANDIN' }))).toHaveLength(1);
  });

  it('reads a redelivery (X-Slack-Retry-Num) as the same message', () => {
    const event = slackMessageEvent({ channel: 'D1', user: 'U1', text: 'hello' });
    const first = messagesOf(connection(), deliver(event, { eventId: 'Ev1' }));
    const retry = deliver(event, { eventId: 'Ev1', retryNum: 1, retryReason: 'http_timeout' });
    expect(retry.headers['x-slack-retry-num']).toBe('1');
    expect(messagesOf(connection(), retry)).toEqual(first);
  });
});

describe('splitForSlack and escapeSlackText', () => {
  it('keeps a short reply whole', () => {
    expect(splitForSlack('Yes, we ship to Norway.')).toEqual(['Yes, we ship to Norway.']);
    expect(splitForSlack('  \n ')).toEqual([]);
  });

  it('cuts a long reply at paragraphs first, then sentences, every piece within the limit', () => {
    const para = (n: number) => `${'word '.repeat(n).trim()}.`;
    const text = [para(500), para(500), para(500)].join('\n\n'); // ~2,500 characters each
    const pieces = splitForSlack(text);
    expect(pieces).toEqual([para(500), para(500), para(500)]);

    const sentences = Array.from({ length: 200 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const cut = splitForSlack(sentences, 1000);
    expect(cut.length).toBeGreaterThan(1);
    for (const piece of cut) {
      expect(piece.length).toBeLessThanOrEqual(1000);
      expect(piece.endsWith('.')).toBe(true);
    }
    expect(cut.join(' ')).toBe(sentences);
  });

  it('cuts text without boundaries hard, never inside a surrogate pair', () => {
    const text = `a${'😀'.repeat(10)}`; // 21 UTF-16 units
    const pieces = splitForSlack(text, 4);
    expect(pieces.join('')).toBe(text);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(4);
      expect(piece).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
    }
  });

  it('escapes Slack’s control characters so a reply cannot ping the channel', () => {
    expect(escapeSlackText('<!channel> a & b > c')).toBe('&lt;!channel&gt; a &amp; b &gt; c');
  });
});
