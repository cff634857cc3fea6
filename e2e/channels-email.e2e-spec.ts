import { randomUUID } from 'node:crypto';
import { connect, NatsConnection } from 'nats';
import { Client } from 'pg';
import { SMTPServer } from 'smtp-server';
import type { CallerContext } from '@sa/contracts';
import { RpcClient } from '@sa/messaging';
import { PrivateDovecot, deliverMail, startDovecot } from '@sa/testing';
import { request } from './support/api';
import { waitFor } from './support/apps';
import { ConsoleSystem, startConsoleSystem, workspaceWithPeople } from './support/console-system';
import { freePort } from './support/infra';
import { ModelStandIn, startModelStandIn } from './support/model-stand-in';
import { parseMessage } from './support/smtp-capture';

/**
 * Channels (issue 35), e-mail end to end against real servers on this machine: a private Debian
 * Dovecot (IMAP, IDLE) holds the bot's mailbox, a local SMTP server (the `smtp-server` package,
 * with AUTH) takes its answers. The channels service reads the mailbox, chat answers through the
 * installation's model (a local OpenAI stand-in that quotes the passage it was given), and the
 * answer goes back over SMTP in the same thread. Killing the channels service (kill -9) while it
 * waits for an answer loses nothing and sends nothing twice.
 */
const PASSWORD = 'correct horse battery staple';
const HOURS = 'Our shop in Kochi opens at 10 am and closes at 7 pm, Monday to Saturday.';
const BOT_ADDRESS = 'support@shop.example';
const SMTP_USER = 'bot';

interface SentMail {
  user: string;
  to: string[];
  headers: Record<string, string>;
  text: string;
}

function mail(h: { from: string; subject: string; messageId: string; inReplyTo?: string; references?: string[]; extra?: string[] }, body: string): string {
  return [
    `From: ${h.from}`,
    `To: Shop Support <${BOT_ADDRESS}>`,
    `Subject: ${h.subject}`,
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: ${h.messageId}`,
    ...(h.inReplyTo ? [`In-Reply-To: ${h.inReplyTo}`] : []),
    ...(h.references ? [`References: ${h.references.join(' ')}`] : []),
    ...(h.extra ?? []),
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    body,
    '',
  ].join('\r\n');
}

describe('channels: e-mail over IMAP (Dovecot) and SMTP (issue 35)', () => {
  let sys: ConsoleSystem;
  let dovecot: PrivateDovecot;
  let smtp: SMTPServer;
  let smtpPort: number;
  const sent: SentMail[] = [];
  let model: ModelStandIn;
  /** Extra time the model takes, per piece of its answer (the kill test makes it slow). */
  let gapMs = 0;
  let db: Client;
  let nc: NatsConnection;
  let rpc: RpcClient;
  let ctx: CallerContext;
  let token: string;
  let bot: string;
  let connectionId: string;
  const channelsEnv = { CHANNELS_POLL_MS: '200', CHANNELS_RETRY_BASE_MS: '200', CHANNELS_LEASE_MS: '3000', CHANNELS_MAIL_POLL_MS: '500' };

  const api = (method: string, path: string, body?: unknown) => request(method, path, body, { token, baseUrl: sys.apiUrl });
  const repliesTo = (messageId: string) => sent.filter((m) => m.headers['in-reply-to'] === messageId);
  const userMessages = async (providerMessageId: string) =>
    (await db.query(`SELECT session_id FROM chat.messages WHERE role = 'user' AND channel = 'email' AND provider_message_id = $1`, [providerMessageId])).rows as { session_id: string }[];

  beforeAll(async () => {
    dovecot = await startDovecot({ user: 'bot', password: 'mailbox-password-e2e' });
    smtpPort = await freePort();
    smtp = new SMTPServer({
      authOptional: false,
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth: (auth, _session, cb) => (auth.username === SMTP_USER && auth.password === 'smtp-password-e2e' ? cb(null, { user: auth.username }) : cb(new Error('Invalid username or password'))),
      onData(stream, session, cb) {
        let raw = '';
        stream.on('data', (d: Buffer) => (raw += d.toString('utf8')));
        stream.on('end', () => {
          const parsed = parseMessage(raw);
          sent.push({ user: String(session.user), to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), headers: parsed.headers, text: parsed.text });
          cb();
        });
      },
    });
    smtp.on('error', () => undefined); // a client gone inside a transaction: see e2e/support/smtp-capture.ts
    await new Promise<void>((r) => smtp.listen(smtpPort, '127.0.0.1', () => r()));
    model = await startModelStandIn((body) => {
      const prompt = JSON.stringify(body['messages']);
      const fact = /opens at 10 am[^."\\]*/.exec(prompt)?.[0];
      const text = fact ? `Hello! Our shop ${fact}.` : 'I do not know that, sorry.';
      return { pieces: text.split(/(?<= )/), gapMs };
    });
    sys = await startConsoleSystem(
      { CHAT_MODEL_PROVIDER: 'openai', CHAT_MODEL_BASE_URL: model.baseUrl, CHAT_MODEL_NAME: 'house-model', CHAT_MODEL_MAX_RETRIES: '0', ...channelsEnv },
      { apps: ['gateway', 'bots', 'knowledge', 'chat', 'leads', 'console', 'channels'], allowPorts: [Number(new URL(model.baseUrl).port)] },
    );
    db = new Client({ connectionString: sys.mini.databaseUrl });
    await db.connect();
    const people = await workspaceWithPeople(sys, 'Acme Mail', { owner: 'owen@mail.example', member: 'mina@mail.example', password: PASSWORD });
    token = people.token;
    nc = await connect({ servers: sys.natsUrl });
    rpc = new RpcClient(nc, 10000);
    ctx = {
      tenantId: people.ws.id,
      tokenId: null,
      scopes: [],
      botIds: null,
      requestId: 'e2e-channels-email',
      entitlements: { plan: 'scale', botSlots: 10, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 1000, pagesPerBot: 100, widgetMessagesPerBotPerMonth: 100, webhooks: true },
    };
    bot = (await waitFor(() => api('POST', '/bots', { name: 'Mail desk', language: 'en' }), (r) => r.status === 201, 20000)).body.data.id;
    await api('POST', '/kb/ingest', { title: 'Opening hours', text: HOURS, chatbotId: bot });
    await waitFor(async () => (await api('GET', `/kb?chatbotId=${bot}`)).body.data, (docs: any[]) => docs.length === 1 && docs[0].status === 'ready', 60000, 250);
    const created = await rpc.send(
      'channels.connection.create',
      {
        botId: bot,
        kind: 'email',
        name: 'Support inbox',
        settings: {
          imap_host: '127.0.0.1',
          imap_port: String(dovecot.port),
          imap_tls: 'none',
          imap_user: dovecot.user,
          smtp_host: '127.0.0.1',
          smtp_port: String(smtpPort),
          smtp_tls: 'none',
          smtp_user: SMTP_USER,
          from_address: BOT_ADDRESS,
          from_name: 'Shop Support',
        },
        secrets: { imap_password: dovecot.password, smtp_password: 'smtp-password-e2e' },
      },
      ctx,
    );
    connectionId = created.id;
    expect(created).toMatchObject({ kind: 'email', webhook_url: null, secrets_set: ['imap_password', 'smtp_password'] });
    // The reader is connected (IDLE) before the first mail arrives.
    await waitFor(async () => (await db.query(`SELECT reader_id FROM channels.connections WHERE id = $1`, [connectionId])).rows[0]?.reader_id, (r) => !!r, 30000, 100);
  }, 240000);

  afterAll(async () => {
    await nc?.close();
    await db?.end();
    await sys?.stop();
    await model?.close();
    await new Promise<void>((r) => (smtp ? smtp.close(() => r()) : r()));
    await dovecot?.stop();
  });

  it('a mail to the mailbox is answered in the same thread with the knowledge\'s fact; a reply in the thread continues the session', async () => {
    const first = `<${randomUUID()}@customer.example>`;
    await deliverMail(dovecot, mail({ from: 'Asha Rao <asha@customer.example>', subject: 'Opening hours', messageId: first }, 'Hi,\r\n\r\nwhat time do you open?\r\n\r\n-- \r\nAsha Rao\r\nRao Traders'));
    const [answer] = await waitFor(async () => repliesTo(first), (r) => r.length >= 1, 30000, 100);
    expect(answer).toMatchObject({ user: SMTP_USER, to: ['asha@customer.example'] });
    expect(answer!.headers['subject']).toBe('Re: Opening hours');
    expect(answer!.headers['references']).toContain(first);
    expect(answer!.headers['auto-submitted']).toBe('auto-replied');
    expect(answer!.headers['from']).toContain(BOT_ADDRESS);
    expect(answer!.text).toContain('10 am');
    // The signature was not part of the question the bot read.
    const [stored] = (await db.query(`SELECT content, session_id FROM chat.messages WHERE role = 'user' AND provider_message_id = $1`, [first])).rows;
    expect(stored.content).toContain('what time do you open?');
    expect(stored.content).not.toContain('Rao Traders');

    // The customer answers in the thread, quoting the bot: same session, and the quote is not read.
    const second = `<${randomUUID()}@customer.example>`;
    const botId = answer!.headers['message-id']!;
    await deliverMail(
      dovecot,
      mail(
        { from: 'Asha Rao <asha@customer.example>', subject: 'Re: Opening hours', messageId: second, inReplyTo: botId, references: [first, botId] },
        `And when do you close?\r\n\r\nOn Sun, 29 Nov 2026 at 10:00, Shop Support <${BOT_ADDRESS}> wrote:\r\n> Hello! Our shop opens at 10 am.\r\n`,
      ),
    );
    await waitFor(async () => repliesTo(second), (r) => r.length >= 1, 30000, 100);
    const [again] = await userMessages(second);
    expect(again!.session_id).toBe(stored.session_id);
    const session = (await api('GET', `/conversations/${stored.session_id}`)).body.data as any[];
    expect(session.map((m) => [m.role, m.channel])).toEqual([
      ['user', 'email'],
      ['assistant', 'email'],
      ['user', 'email'],
      ['assistant', 'email'],
    ]);
    expect(session[2].content).toBe('And when do you close?');
  });

  it('an auto-reply or a bounce is not answered', async () => {
    const ooo = `<${randomUUID()}@customer.example>`;
    await deliverMail(dovecot, mail({ from: 'Ravi <ravi@customer.example>', subject: 'Out of office', messageId: ooo, extra: ['Auto-Submitted: auto-replied'] }, 'I am away until Monday. When do you open?'));
    const bounce = `<${randomUUID()}@mx.customer.example>`;
    await deliverMail(dovecot, mail({ from: 'Mail Delivery Subsystem <MAILER-DAEMON@mx.customer.example>', subject: 'Undelivered Mail Returned to Sender', messageId: bounce }, 'This is the mail system. When do you open?'));
    // A normal mail after them is answered: so the reader went past both.
    const after = `<${randomUUID()}@customer.example>`;
    await deliverMail(dovecot, mail({ from: 'Meera <meera@customer.example>', subject: 'Hours', messageId: after }, 'When do you open?'));
    await waitFor(async () => repliesTo(after), (r) => r.length >= 1, 30000, 100);
    expect(repliesTo(ooo)).toEqual([]);
    expect(repliesTo(bounce)).toEqual([]);
    expect(await userMessages(ooo)).toEqual([]);
    expect(await userMessages(bounce)).toEqual([]);
  });

  it('the same message delivered twice is answered once', async () => {
    const id = `<${randomUUID()}@customer.example>`;
    const raw = mail({ from: 'Omar <omar@customer.example>', subject: 'Question', messageId: id }, 'What time do you open on Monday?');
    await deliverMail(dovecot, raw);
    await deliverMail(dovecot, raw);
    await waitFor(async () => repliesTo(id), (r) => r.length >= 1, 30000, 100);
    await new Promise((r) => setTimeout(r, 2000));
    expect(repliesTo(id)).toHaveLength(1);
    expect(await userMessages(id)).toHaveLength(1);
  });

  it('kill -9 of the channels service mid-answer: after the restart the mail is answered once, nothing lost, nothing twice', async () => {
    gapMs = 300; // the answer now takes a few seconds
    const id = `<${randomUUID()}@customer.example>`;
    await deliverMail(dovecot, mail({ from: 'Lena <lena@customer.example>', subject: 'Hours?', messageId: id }, 'Hello, what time do you open tomorrow?'));
    // Stored and claimed: the answer is being generated.
    await waitFor(async () => (await db.query(`SELECT claimed_by FROM channels.inbound WHERE provider_message_id = $1`, [id])).rows[0]?.claimed_by, (c) => !!c, 30000, 20);
    await sys.mini.apps.get('channels')!.kill('SIGKILL');
    gapMs = 0;
    sys.mini.start('channels', channelsEnv, 'channels');
    await waitFor(async () => repliesTo(id), (r) => r.length >= 1, 60000, 100);
    await new Promise((r) => setTimeout(r, 3000));
    expect(repliesTo(id)).toHaveLength(1);
    expect(repliesTo(id)[0]!.text).toContain('10 am');
    expect(await userMessages(id)).toHaveLength(1);
    const [{ n }] = (await db.query(`SELECT count(*)::int AS n FROM chat.messages m JOIN chat.messages u ON u.session_id = m.session_id WHERE u.provider_message_id = $1 AND m.role = 'assistant'`, [id])).rows;
    expect(n).toBe(1);
    const [row] = (await db.query(`SELECT state FROM channels.inbound WHERE provider_message_id = $1`, [id])).rows;
    expect(row.state).toBe('answered');
  });
});
