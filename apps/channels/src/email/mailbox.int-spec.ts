import 'reflect-metadata';
import { Resolver } from '@sa/net-guard';
import { deliverMail, freePort, listMail, PrivateDovecot, recreateMailbox, selfSignedCertificate, startDovecot } from '@sa/testing';
import { ImapFlow } from 'imapflow';
import { ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { InboundMessage, PermanentSendError, ProviderConnection, RetryableSendError } from '../providers/provider';
import { toInboundMessage } from './inbound-mail';
import { sendMailReply } from './mail-sender';
import { MailboxReader, MailboxReaderOptions, MailboxStatus, MailCheckpoint, MailInfo } from './mailbox-reader';

// The e-mail channel's IMAP reader and SMTP sender against real servers: a private Dovecot
// (Debian's dovecot-imapd, libs/testing's startDovecot) and an smtp-server that records what it
// accepts and refuses some recipients the way real servers do.

const IMAP_NAME = 'imap.mail.test';
const SMTP_NAME = 'smtp.mail.test';
/** Loopback is allowed only for these tests, as OUTBOUND_ALLOW_CIDRS would allow it. */
const policy = { allowCidrs: ['127.0.0.1/32'] };
/** The two test host names resolve to loopback (a stub resolver: no /etc/hosts edits). */
const resolver: Resolver = async (hostname) => {
  if (hostname === IMAP_NAME || hostname === SMTP_NAME) return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

/** One message the SMTP server accepted, parsed by mailparser. */
interface Captured {
  from: string;
  to: string[];
  user: string | null;
  raw: string;
  parsed: ParsedMail;
}

interface SmtpSink {
  port: number;
  mails: Captured[];
  stop(): Promise<void>;
}

/**
 * A real SMTP server on 127.0.0.1 requiring a login. Recipients busy@… get 451 (try later) and
 * nobody@… 550 (no such user) at RCPT TO, as real servers answer them.
 */
async function startSmtpSink(opts: { user: string; password: string; tls?: { key: string; cert: string } }): Promise<SmtpSink> {
  const mails: Captured[] = [];
  const server = new SMTPServer({
    secure: Boolean(opts.tls),
    ...(opts.tls ? { key: opts.tls.key, cert: opts.tls.cert } : { disabledCommands: ['STARTTLS'] }),
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === opts.user && auth.password === opts.password) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      const local = address.address.split('@')[0];
      if (local === 'busy') return callback(Object.assign(new Error('4.3.0 Mailbox temporarily unavailable'), { responseCode: 451 }));
      if (local === 'nobody') return callback(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (d: Buffer) => chunks.push(d));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw).then(
          (parsed) => {
            mails.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              user: typeof session.user === 'string' ? session.user : null,
              raw,
              parsed,
            });
            callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  // A client that gives up mid-handshake (the untrusted-certificate test) is an 'error' event.
  server.on('error', () => undefined);
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return { port, mails, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A raw message from a customer; `headers` replace or add to the defaults. */
function customerMail(headers: Record<string, string> = {}, body = 'Hello, where is my order 1234?'): string {
  const all: Record<string, string> = {
    From: 'Jane Doe <jane@example.com>',
    To: 'support@shop.test',
    Subject: 'Order question',
    'Message-ID': `<${Math.random().toString(36).slice(2)}@example.com>`,
    Date: new Date().toUTCString(),
    'Content-Type': 'text/plain; charset=utf-8',
    ...headers,
  };
  return `${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n${body.replace(/\r?\n/g, '\r\n')}\r\n`;
}

async function waitFor<T>(what: string, probe: () => T | undefined | null | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A reader and everything it reported. */
interface Harness {
  reader: MailboxReader;
  messages: { msg: InboundMessage | null; info: MailInfo }[];
  skipped: { info: MailInfo; reason: string }[];
  checkpoints: MailCheckpoint[];
  statuses: MailboxStatus[];
}

let dovecot: PrivateDovecot;
let smtp: SmtpSink;
const SMTP_USER = 'mailer';
const SMTP_PASSWORD = 'smtp-secret-password';
const running: MailboxReader[] = [];

beforeAll(async () => {
  dovecot = await startDovecot({ tls: { hostname: IMAP_NAME } });
  smtp = await startSmtpSink({ user: SMTP_USER, password: SMTP_PASSWORD });
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

afterAll(async () => {
  await smtp?.stop();
  await dovecot?.stop();
});

function connection(settings: Record<string, string> = {}, secrets: Record<string, string> = {}, server: PrivateDovecot = dovecot): ProviderConnection {
  return {
    id: 'conn-1',
    settings: {
      imap_host: '127.0.0.1',
      imap_port: String(server.port),
      imap_tls: 'none',
      imap_user: server.user,
      smtp_host: '127.0.0.1',
      smtp_port: String(smtp.port),
      smtp_tls: 'none',
      smtp_user: SMTP_USER,
      from_address: 'support@shop.test',
      from_name: 'Shop Support',
      ...settings,
    },
    secrets: { imap_password: server.password, smtp_password: SMTP_PASSWORD, ...secrets },
  };
}

function startReader(conn: ProviderConnection, start: MailCheckpoint | null, overrides: Partial<MailboxReaderOptions> = {}): Harness {
  const h: Omit<Harness, 'reader'> = { messages: [], skipped: [], checkpoints: [], statuses: [] };
  const reader = new MailboxReader({
    connection: conn,
    start,
    checkpoint: async (uidValidity, uid) => {
      h.checkpoints.push({ uidValidity, lastUid: uid });
    },
    onMessage: async (msg, info) => {
      h.messages.push({ msg, info });
    },
    onSkipped: (info, reason) => h.skipped.push({ info, reason }),
    onStatus: (status) => h.statuses.push(status),
    policy,
    resolver,
    pollMs: 60_000,
    backoff: { baseMs: 100, maxMs: 500 },
    ...overrides,
  });
  running.push(reader);
  reader.start();
  return { reader, ...h };
}

async function stopReader(h: Harness): Promise<void> {
  await h.reader.stop();
  running.splice(running.indexOf(h.reader), 1);
}

describe('MailboxReader against Dovecot', () => {
  it('hands a delivered message to onMessage with its fields, marks it \\Seen and checkpoints it', async () => {
    const { uid } = await deliverMail(dovecot, customerMail({ 'Message-ID': '<first@example.com>' }));
    const h = startReader(connection(), null);
    const [got] = await waitFor('the message', () => (h.messages.length > 0 ? h.messages : null));
    expect(got.msg).toEqual({
      providerMessageId: '<first@example.com>',
      conversationKey: 'jane@example.com <first@example.com>',
      text: 'Hello, where is my order 1234?',
      sender: { id: 'jane@example.com', name: 'Jane Doe', email: 'jane@example.com' },
      sentAt: expect.any(Number),
      replyTo: { to: 'jane@example.com', subject: 'Order question', message_id: '<first@example.com>', references: [] },
    });
    expect(got.info).toMatchObject({ uid, messageId: '<first@example.com>', from: 'jane@example.com', subject: 'Order question' });
    await waitFor('the checkpoint', () => h.checkpoints.find((c) => c.lastUid >= uid));
    expect(h.statuses[0]).toEqual({ state: 'connected', idle: true });
    const flags = (await listMail(dovecot)).find((m) => m.uid === uid)?.flags;
    expect(flags).toContain('\\Seen');
  });

  it('picks up a message appended while it idles within a couple of seconds, and never hands over an auto-reply', async () => {
    const h = startReader(connection(), null);
    await waitFor('connected', () => h.statuses.find((s) => s.state === 'connected'));
    await waitFor('the first checkpoint', () => h.checkpoints.length > 0);
    // The poll is 60 s: only IDLE can bring these in time.
    const auto = await deliverMail(dovecot, customerMail({ 'Auto-Submitted': 'auto-replied', Subject: 'Out of office' }, 'I am away until Monday.'));
    const started = Date.now();
    const human = await deliverMail(dovecot, customerMail({ 'Message-ID': '<idle@example.com>' }, 'Is the shop open on Sunday?'));
    const got = await waitFor('the idle pick-up', () => h.messages.find((m) => m.msg?.providerMessageId === '<idle@example.com>'), 5000);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(got.msg?.text).toBe('Is the shop open on Sunday?');
    expect(h.messages.map((m) => m.info.uid)).not.toContain(auto.uid);
    expect(h.skipped).toEqual([{ info: expect.objectContaining({ uid: auto.uid, subject: 'Out of office' }), reason: 'Auto-Submitted: auto-replied' }]);
    // The checkpoint moved past both; the auto-reply is left unread for a person.
    await waitFor('the checkpoint', () => h.checkpoints.find((c) => c.lastUid === human.uid));
    const flags = new Map((await listMail(dovecot)).map((m) => [m.uid, m.flags]));
    expect(flags.get(auto.uid)).not.toContain('\\Seen');
    expect(flags.get(human.uid)).toContain('\\Seen');
  });

  it('does not re-deliver after a restart from its checkpoint, even mail marked unread again', async () => {
    const first = startReader(connection(), null);
    const before = await deliverMail(dovecot, customerMail({ 'Message-ID': '<before-restart@example.com>' }));
    await waitFor('the first message', () => first.messages.find((m) => m.info.uid === before.uid));
    await waitFor('its checkpoint', () => first.checkpoints.find((c) => c.lastUid === before.uid));
    await stopReader(first);
    const checkpoint = first.reader.checkpointReached as MailCheckpoint;
    expect(checkpoint.lastUid).toBe(before.uid);

    // Someone marks everything unread in their mail client meanwhile.
    await markAllUnseen(dovecot);
    const after = await deliverMail(dovecot, customerMail({ 'Message-ID': '<after-restart@example.com>' }));
    const second = startReader(connection(), checkpoint);
    await waitFor('the new message', () => second.messages.find((m) => m.info.uid === after.uid));
    await waitFor('its checkpoint', () => second.checkpoints.find((c) => c.lastUid === after.uid));
    expect(second.messages.map((m) => m.msg?.providerMessageId)).toEqual(['<after-restart@example.com>']);
  });

  it('loses nothing when storing fails mid-way: the same message comes again after a reconnect', async () => {
    let calls = 0;
    const stored: string[] = [];
    const checkpoints: number[] = [];
    const start = await currentCheckpoint();
    const { uid } = await deliverMail(dovecot, customerMail({ 'Message-ID': '<crash@example.com>' }));
    const h = startReader(connection(), start, {
      onMessage: async (msg) => {
        calls++;
        if (calls === 1) throw new Error('database unavailable');
        stored.push(msg?.providerMessageId ?? 'null');
      },
      checkpoint: async (_v, u) => {
        checkpoints.push(u);
      },
    });
    await waitFor('the second delivery and its checkpoint', () => stored.length > 0 && checkpoints.length > 0);
    expect(stored).toEqual(['<crash@example.com>']);
    expect(calls).toBe(2);
    expect(checkpoints).toEqual([uid]);
    expect(h.statuses.map((s) => s.state)).toEqual(['connected', 'error', 'connected']);
    expect(h.statuses[1]).toEqual({ state: 'error', message: 'storing a message failed: database unavailable', attempt: 1 });
  });

  it('with no checkpoint reads recent unread mail only, not mail already read', async () => {
    const read = await deliverMail(dovecot, customerMail({ 'Message-ID': '<already-read@example.com>' }), { flags: ['\\Seen'] });
    const unread = await deliverMail(dovecot, customerMail({ 'Message-ID': '<unread@example.com>' }));
    await markSeenBelow(dovecot, read.uid);
    const h = startReader(connection(), null);
    const cp = await waitFor('the checkpoint', () => h.checkpoints[0]);
    expect(cp.lastUid).toBeGreaterThanOrEqual(unread.uid);
    expect(h.messages.map((m) => m.msg?.providerMessageId)).toEqual(['<unread@example.com>']);
  });

  it('starts from the unread mail when UIDVALIDITY changes', async () => {
    await recreateMailbox(dovecot, 'Support');
    await deliverMail(dovecot, customerMail({ 'Message-ID': '<old-box@example.com>' }), { mailbox: 'Support' });
    const first = startReader(connection({ mailbox: 'Support' }), null);
    await waitFor('the old mailbox message', () => first.messages.length === 1);
    const oldCheckpoint = await waitFor('the checkpoint', () => first.checkpoints[first.checkpoints.length - 1]);
    await stopReader(first);

    await new Promise((r) => setTimeout(r, 1100)); // Dovecot's UIDVALIDITY is a timestamp in seconds
    await recreateMailbox(dovecot, 'Support');
    await deliverMail(dovecot, customerMail({ 'Message-ID': '<restored-read@example.com>' }), { mailbox: 'Support', flags: ['\\Seen'] });
    await deliverMail(dovecot, customerMail({ 'Message-ID': '<restored-unread@example.com>' }), { mailbox: 'Support' });
    const second = startReader(connection({ mailbox: 'Support' }), oldCheckpoint);
    const cp = await waitFor('the new checkpoint', () => second.checkpoints[0]);
    expect(cp.uidValidity).not.toBe(oldCheckpoint.uidValidity);
    expect(second.messages.map((m) => m.msg?.providerMessageId)).toEqual(['<restored-unread@example.com>']);
  });

  it('reconnects with backoff when the server goes away, and reads what arrived meanwhile', async () => {
    const h = startReader(connection(), await currentCheckpoint());
    await waitFor('connected', () => h.statuses.find((s) => s.state === 'connected'));
    await dovecot.restart(300);
    const { uid } = await deliverMail(dovecot, customerMail({ 'Message-ID': '<after-outage@example.com>' }));
    await waitFor('the message after the outage', () => h.messages.find((m) => m.info.uid === uid), 15_000);
    const states = h.statuses.map((s) => s.state);
    expect(states[0]).toBe('connected');
    expect(states).toContain('error');
    expect(states[states.length - 1]).toBe('connected');
  });

  it('polls every pollMs when the server has no IDLE', async () => {
    const noIdle = await startDovecot({ idle: false });
    try {
      const h = startReader(connection({}, {}, noIdle), null, { pollMs: 400 });
      await waitFor('connected', () => h.statuses.find((s) => s.state === 'connected'));
      expect(h.statuses[0]).toEqual({ state: 'connected', idle: false });
      await waitFor('the first checkpoint', () => h.checkpoints.length > 0);
      await deliverMail(noIdle, customerMail({ 'Message-ID': '<polled@example.com>' }));
      await waitFor('the polled message', () => h.messages.find((m) => m.msg?.providerMessageId === '<polled@example.com>'), 3000);
      await stopReader(h);
    } finally {
      await noIdle.stop();
    }
  });

  it('speaks implicit TLS and STARTTLS to the guard-checked address, verifying the certificate for the host name', async () => {
    const ca = dovecot.certificate as string;
    const implicit = startReader(connection({ imap_host: IMAP_NAME, imap_port: String(dovecot.tlsPort), imap_tls: 'implicit' }), await currentCheckpoint(), { ca });
    const starttls = startReader(connection({ imap_host: IMAP_NAME, imap_port: String(dovecot.port), imap_tls: 'starttls' }), await currentCheckpoint(), { ca });
    await waitFor('implicit TLS connected', () => implicit.statuses.find((s) => s.state === 'connected'));
    await waitFor('STARTTLS connected', () => starttls.statuses.find((s) => s.state === 'connected'));

    const untrusted = startReader(connection({ imap_host: IMAP_NAME, imap_port: String(dovecot.tlsPort), imap_tls: 'implicit' }), null);
    const failure = await waitFor('a certificate error', () => untrusted.statuses.find((s) => s.state === 'error'));
    expect(failure).toMatchObject({ message: expect.stringMatching(/certificate/i) });
  });

  it('refuses a host the outbound guard blocks, and reports a failed login without the password', async () => {
    const blocked = startReader(connection(), null, { policy: { allowCidrs: [] } });
    const refusal = await waitFor('the refusal', () => blocked.statuses.find((s) => s.state === 'error'));
    expect(refusal).toMatchObject({ message: expect.stringContaining('refused by the outbound guard: 127.0.0.1 is a loopback address') });

    const wrongPassword = 'wrong-password-do-not-log';
    const badLogin = startReader(connection({}, { imap_password: wrongPassword }), null);
    const failure = await waitFor('the login failure', () => badLogin.statuses.find((s) => s.state === 'error'));
    expect(failure).toEqual({ state: 'error', message: 'IMAP 127.0.0.1: login failed (check imap_user and imap_password)', attempt: 1 });
    expect(JSON.stringify([...badLogin.statuses, ...blocked.statuses])).not.toContain(wrongPassword);
    expect(badLogin.messages).toEqual([]);
  });
});

describe('sendMailReply against an SMTP server', () => {
  const replyTo = { to: 'jane@example.com', subject: 'Order question', message_id: '<m2@example.com>', references: ['<m1@example.com>', '<bot1@shop.test>'] };

  it('sends in the thread: From, To, Re: subject, In-Reply-To, References, Auto-Submitted, our Message-ID', async () => {
    const sent = await sendMailReply(connection(), replyTo, 'Your order ships tomorrow.', { policy, resolver });
    const mail = await waitFor('the mail', () => smtp.mails.find((m) => m.parsed.messageId === sent.providerMessageId));
    expect(sent.providerMessageId).toMatch(/^<[0-9a-f-]{36}@shop\.test>$/);
    expect(mail.from).toBe('support@shop.test');
    expect(mail.to).toEqual(['jane@example.com']);
    expect(mail.user).toBe(SMTP_USER);
    expect(mail.parsed.from?.value).toEqual([{ name: 'Shop Support', address: 'support@shop.test' }]);
    expect(mail.parsed.subject).toBe('Re: Order question');
    expect(mail.parsed.inReplyTo).toBe('<m2@example.com>');
    expect(mail.parsed.references).toEqual(['<m1@example.com>', '<bot1@shop.test>', '<m2@example.com>']);
    expect(mail.parsed.headers.get('auto-submitted')).toBe('auto-replied');
    expect(mail.parsed.headers.get('x-auto-response-suppress')).toBe('All');
    expect(mail.parsed.text?.trim()).toBe('Your order ships tomorrow.');
  });

  it('does not double the Re:', async () => {
    const sent = await sendMailReply(connection(), { ...replyTo, subject: 'RE: Order question' }, 'Yes.', { policy, resolver });
    const mail = await waitFor('the mail', () => smtp.mails.find((m) => m.parsed.messageId === sent.providerMessageId));
    expect(mail.parsed.subject).toBe('RE: Order question');
  });

  it('maps 451 to RetryableSendError and 550 to PermanentSendError', async () => {
    const busy = sendMailReply(connection(), { ...replyTo, to: 'busy@example.com' }, 'x', { policy, resolver });
    await expect(busy).rejects.toBeInstanceOf(RetryableSendError);
    await expect(busy).rejects.toThrow(/451/);
    const nobody = sendMailReply(connection(), { ...replyTo, to: 'nobody@example.com' }, 'x', { policy, resolver });
    await expect(nobody).rejects.toBeInstanceOf(PermanentSendError);
    await expect(nobody).rejects.toThrow(/550/);
  });

  it('is permanent for a refused login (without the password), a blocked host or a bad reply target; retryable when the server is down', async () => {
    const password = 'this-password-is-wrong';
    const login = sendMailReply(connection({}, { smtp_password: password }), replyTo, 'x', { policy, resolver });
    await expect(login).rejects.toBeInstanceOf(PermanentSendError);
    const err = (await login.catch((e: Error) => e)) as Error;
    expect(err.message).toMatch(/535/);
    expect(err.message).not.toContain(password);

    await expect(sendMailReply(connection(), replyTo, 'x', { policy: { allowCidrs: [] }, resolver })).rejects.toBeInstanceOf(PermanentSendError);
    await expect(sendMailReply(connection(), { to: 'jane@example.com\r\nBcc: x@y.z', message_id: '<a@b>' }, 'x', { policy, resolver })).rejects.toBeInstanceOf(PermanentSendError);
    await expect(sendMailReply(connection(), { to: 'jane@example.com' }, 'x', { policy, resolver })).rejects.toBeInstanceOf(PermanentSendError);

    const closedPort = await freePort();
    const down = sendMailReply(connection({ smtp_port: String(closedPort) }), replyTo, 'x', { policy, resolver, timeoutMs: 3000 });
    await expect(down).rejects.toBeInstanceOf(RetryableSendError);
  });

  it('speaks implicit TLS to the checked address, verifying the certificate for the host name', async () => {
    const tls = selfSignedCertificate(SMTP_NAME);
    const secureSmtp = await startSmtpSink({ user: SMTP_USER, password: SMTP_PASSWORD, tls });
    try {
      const conn = connection({ smtp_host: SMTP_NAME, smtp_port: String(secureSmtp.port), smtp_tls: 'implicit' });
      const sent = await sendMailReply(conn, replyTo, 'Over TLS.', { policy, resolver, ca: tls.cert });
      expect(secureSmtp.mails.map((m) => m.parsed.messageId)).toEqual([sent.providerMessageId]);
      await expect(sendMailReply(conn, replyTo, 'Untrusted.', { policy, resolver })).rejects.toBeInstanceOf(PermanentSendError);
    } finally {
      await secureSmtp.stop();
    }
  });
});

describe('a thread end to end (reader, sender, reader)', () => {
  it('continues the session when the customer answers our reply, and never answers our own reply', async () => {
    const h = startReader(connection(), await currentCheckpoint());
    await deliverMail(dovecot, customerMail({ 'Message-ID': '<thread-root@example.com>' }, 'Do you ship to Norway?'));
    const first = await waitFor('the first message', () => h.messages.find((m) => m.msg?.providerMessageId === '<thread-root@example.com>'));

    const sent = await sendMailReply(connection(), first.msg?.replyTo ?? {}, 'Yes, we ship to Norway.', { policy, resolver });
    const ours = await waitFor('our reply', () => smtp.mails.find((m) => m.parsed.messageId === sent.providerMessageId));
    // Our reply lands in the mailbox too (a Bcc, a forwarder, a loop): it is skipped.
    await deliverMail(dovecot, ours.raw);
    await waitFor('our reply skipped', () => h.skipped.find((s) => s.info.messageId === sent.providerMessageId));

    // The customer answers from Gmail, quoting us.
    const answer = customerMail(
      {
        'Message-ID': '<thread-2@example.com>',
        Subject: 'Re: Order question',
        'In-Reply-To': sent.providerMessageId,
        References: [...[ours.parsed.references ?? []].flat(), sent.providerMessageId].join(' '),
      },
      'Great, how long does it take?\n\nOn Mon, 1 Jan 2024 at 10:00, Shop Support <support@shop.test> wrote:\n> Yes, we ship to Norway.\n',
    );
    await deliverMail(dovecot, answer);
    const second = await waitFor('the answer', () => h.messages.find((m) => m.msg?.providerMessageId === '<thread-2@example.com>'));
    expect(second.msg?.conversationKey).toBe(first.msg?.conversationKey);
    expect(second.msg?.text).toBe('Great, how long does it take?');
    expect(toInboundMessage(await simpleParser(ours.raw))).not.toBeNull(); // it is skipped for being automatic, not for being unparseable
  });
});

/**
 * The checkpoint at the mailbox's current end, so that a test reads only what it delivers (the
 * catch-up reads, and marks read, what earlier tests left unread today: IMAP's SINCE is a date).
 */
async function currentCheckpoint(): Promise<MailCheckpoint> {
  const h = startReader(connection(), null, { catchUpMs: 0 });
  const cp = await waitFor('a checkpoint', () => h.checkpoints[0]);
  await stopReader(h);
  return cp;
}

/** Runs `fn` on the test user's INBOX (the test's own side, as a person's mail client would). */
async function inInbox(server: PrivateDovecot, fn: (client: ImapFlow) => Promise<unknown>): Promise<void> {
  const client = new ImapFlow({ host: server.host, port: server.port, secure: false, doSTARTTLS: false, auth: { user: server.user, pass: server.password }, logger: false });
  await client.connect();
  try {
    await client.mailboxOpen('INBOX');
    await fn(client);
  } finally {
    await client.logout();
  }
}

function markAllUnseen(server: PrivateDovecot): Promise<void> {
  return inInbox(server, (client) => client.messageFlagsRemove('1:*', ['\\Seen']));
}

function markSeenBelow(server: PrivateDovecot, uid: number): Promise<void> {
  return inInbox(server, (client) => client.messageFlagsAdd(`1:${uid}`, ['\\Seen'], { uid: true }));
}
