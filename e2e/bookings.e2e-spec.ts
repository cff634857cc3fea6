import { randomUUID } from 'node:crypto';
import { connect, NatsConnection } from 'nats';
import { Client } from 'pg';
import { SMTPServer } from 'smtp-server';
import { admin } from './support/admin';
import { client } from './support/api';
import { waitFor } from './support/apps';
import { newToken, newWorkspace, TestWorkspace } from './support/fixtures';
import { freePort } from './support/infra';
import { MiniSystem, startMiniSystem } from './support/mini-system';
import { e2eState } from './support/state';

/**
 * Bookings through the real gateway (spec parts 2, 3, 4): list, get, and every state change with
 * its status code. Until the widget lands, bookings are created over NATS (bookings.booking.create)
 * with the caller context the gateway would build. The visitor e-mails are checked against a real
 * SMTP server in a mini system started with SMTP_URL.
 */
const ctxOf = (tenantId: string, botIds: string[] | null = null) => ({
  tenantId,
  tokenId: randomUUID(),
  scopes: ['bookings:write'],
  botIds,
  requestId: `e2e-${randomUUID()}`,
  entitlements: { plan: 'growth', botSlots: 3, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 5000, pagesPerBot: 500, widgetMessagesPerBotPerMonth: 2000, webhooks: false },
});

async function createBooking(nc: NatsConnection, tenantId: string, data: Record<string, unknown>): Promise<any> {
  const msg = await nc.request(
    'bookings.booking.create',
    Buffer.from(JSON.stringify({ pattern: 'bookings.booking.create', id: randomUUID(), data: { ctx: ctxOf(tenantId), data } })),
    { timeout: 5000 },
  );
  const reply = JSON.parse(Buffer.from(msg.data).toString('utf8'));
  if (reply.err) throw new Error(`bookings.booking.create failed: ${JSON.stringify(reply.err)}`);
  return reply.response;
}

const visitor = (chatbotId: string, extra: Record<string, unknown> = {}) => ({
  chatbotId,
  name: 'Ann Visitor',
  email: 'ann@example.com',
  phone: '+49 30 1234567',
  requestedSlot: '2027-03-01T10:00:00+01:00',
  timeZone: 'Europe/Berlin',
  ...extra,
});

describe('bookings: GET /v1/bookings, GET/PATCH /v1/bookings/{id} (spec parts 3, 4)', () => {
  const s = e2eState();
  let nc: NatsConnection;
  let a: TestWorkspace;
  let b: TestWorkspace;
  let botX: string;
  let botY: string;
  let db: Client;

  beforeAll(async () => {
    nc = await connect({ servers: s.natsUrl });
    db = new Client({ connectionString: s.databaseUrl });
    await db.connect();
    a = await newWorkspace();
    b = await newWorkspace();
    botX = (await a.api.post('/bots', { name: 'Bookings X' })).body.data.id;
    botY = (await a.api.post('/bots', { name: 'Bookings Y' })).body.data.id;
  });

  afterAll(async () => {
    await nc?.drain();
    await db?.end();
  });

  it('lists newest first with status, chatbotId and limit filters; gets one', async () => {
    const one = await createBooking(nc, a.id, visitor(botX, { notes: 'first', customFields: { seats: '2' }, country: 'DE' }));
    const two = await createBooking(nc, a.id, visitor(botY, { notes: 'second' }));
    const three = await createBooking(nc, a.id, visitor(botX, { notes: 'third' }));
    const all = await a.api.get('/bookings');
    expect(all.status).toBe(200);
    expect(all.body.data.map((x: any) => x.id)).toEqual([three.id, two.id, one.id]);
    expect(all.body.data[2]).toEqual({
      id: one.id,
      tenant_id: a.id,
      chatbot_id: botX,
      name: 'Ann Visitor',
      email: 'ann@example.com',
      phone: '+49 30 1234567',
      notes: 'first',
      requested_slot: '2027-03-01T09:00:00.000Z',
      country: 'DE',
      time_zone: 'Europe/Berlin',
      custom_fields: { seats: '2' },
      status: 'pending',
      rejection_comment: null,
      confirmed_at: null,
      rejected_at: null,
      cancelled_at: null,
      created_at: expect.any(String),
    });
    expect((await a.api.get(`/bookings?chatbotId=${botX}`)).body.data.map((x: any) => x.id)).toEqual([three.id, one.id]);
    expect((await a.api.get('/bookings?limit=1')).body.data.map((x: any) => x.id)).toEqual([three.id]);
    expect((await a.api.patch(`/bookings/${two.id}`, { action: 'reject' })).status).toBe(200);
    expect((await a.api.get('/bookings?status=rejected')).body.data.map((x: any) => x.id)).toEqual([two.id]);
    expect((await a.api.get('/bookings?status=pending')).body.data.map((x: any) => x.id)).toEqual([three.id, one.id]);
    const got = await a.api.get(`/bookings/${one.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ data: all.body.data[2] });
    for (const q of ['limit=0', 'limit=201', 'limit=x', 'status=done', 'chatbotId=nope', 'page=1']) expect({ q, status: (await a.api.get(`/bookings?${q}`)).status }).toEqual({ q, status: 400 });
    expect((await a.api.get('/bookings?limit=200')).status).toBe(200);
    expect((await a.api.get(`/bookings?chatbotId=${randomUUID()}`)).status).toBe(404);
    expect((await a.api.get('/bookings/not-a-uuid')).status).toBe(400);
    expect((await a.api.get(`/bookings/${randomUUID()}`)).status).toBe(404);
  });

  it('allows exactly the transitions of spec part 3 (409 otherwise)', async () => {
    const bk = await createBooking(nc, a.id, visitor(botX, { requestedSlot: '2027-04-01T10:00:00Z' }));
    const confirm = await a.api.patch(`/bookings/${bk.id}`, { action: 'confirm' });
    expect(confirm.status).toBe(200);
    expect(confirm.body.data).toEqual(expect.objectContaining({ id: bk.id, status: 'confirmed', confirmed_at: expect.any(String) }));
    const again = await a.api.patch(`/bookings/${bk.id}`, { action: 'confirm' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual(expect.objectContaining({ code: 'conflict', message: expect.stringMatching(/already decided/) }));
    expect((await a.api.patch(`/bookings/${bk.id}`, { action: 'reject' })).status).toBe(409);
    const cancel = await a.api.patch(`/bookings/${bk.id}`, { action: 'cancel', cancelComment: 'Shop closed' });
    expect(cancel.status).toBe(200);
    expect(cancel.body.data).toEqual(expect.objectContaining({ status: 'cancelled', cancelled_at: expect.any(String) }));
    const cancelAgain = await a.api.patch(`/bookings/${bk.id}`, { action: 'cancel' });
    expect(cancelAgain.status).toBe(409);
    expect(cancelAgain.body.message).toMatch(/no longer active/);

    const p = await createBooking(nc, a.id, visitor(botX, { requestedSlot: '2027-04-02T10:00:00Z' }));
    const noSlot = await a.api.patch(`/bookings/${p.id}`, { action: 'reschedule' });
    expect(noSlot.status).toBe(400);
    expect(noSlot.body.error.issues.map((i: any) => i.path.join('.'))).toContain('body.requestedSlot');
    expect((await a.api.patch(`/bookings/${p.id}`, { action: 'reschedule', requestedSlot: '2027-04-03T10:00:00' })).status).toBe(400);
    const moved = await a.api.patch(`/bookings/${p.id}`, { action: 'reschedule', requestedSlot: '2027-04-03T10:00:00+02:00' });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toEqual(expect.objectContaining({ status: 'pending', requested_slot: '2027-04-03T08:00:00.000Z' }));

    const r = await createBooking(nc, a.id, visitor(botX));
    const rejected = await a.api.patch(`/bookings/${r.id}`, { action: 'reject', rejectionComment: 'Fully booked' });
    expect(rejected.status).toBe(200);
    expect(rejected.body.data).toEqual(expect.objectContaining({ status: 'rejected', rejection_comment: 'Fully booked', rejected_at: expect.any(String) }));
    expect((await a.api.patch(`/bookings/${r.id}`, { action: 'reschedule', requestedSlot: '2027-05-01T10:00:00Z' })).status).toBe(409);
    expect((await a.api.patch(`/bookings/${r.id}`, { action: 'confirm' })).status).toBe(409);

    const c = await createBooking(nc, a.id, visitor(botX));
    expect((await a.api.patch(`/bookings/${c.id}`, { action: 'reject', rejectionComment: 'x'.repeat(501) })).status).toBe(400);
    expect((await a.api.patch(`/bookings/${c.id}`, { action: 'cancel', cancelComment: 'x'.repeat(501) })).status).toBe(400);
    expect((await a.api.patch(`/bookings/${c.id}`, { action: 'approve' })).status).toBe(400);
    expect((await a.api.patch(`/bookings/${c.id}`, {})).status).toBe(400);
    expect((await a.api.patch(`/bookings/${c.id}`, { action: 'reject', rejectionComment: 'x'.repeat(500) })).status).toBe(200);

    // One visitor e-mail per change, written with it; without SMTP_URL they stay pending.
    const { rows } = await db.query(`SELECT kind, to_address, status FROM bookings.emails WHERE booking_id = $1 ORDER BY created_at`, [bk.id]);
    expect(rows).toEqual([
      { kind: 'confirm', to_address: 'ann@example.com', status: 'pending' },
      { kind: 'cancel', to_address: 'ann@example.com', status: 'pending' },
    ]);
  });

  it('a confirmed booking holds its slot: of two concurrent confirms exactly one succeeds', async () => {
    const slot = '2027-06-01T09:00:00Z';
    const first = await createBooking(nc, a.id, visitor(botY, { requestedSlot: slot }));
    const second = await createBooking(nc, a.id, visitor(botY, { requestedSlot: slot }));
    const results = await Promise.all([first, second].map((x) => a.api.patch(`/bookings/${x.id}`, { action: 'confirm' })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const loser = results.find((r) => r.status === 409)!;
    expect(loser.body).toEqual(expect.objectContaining({ code: 'conflict', reason: 'slot_taken' }));
    // A confirmed booking cannot be moved onto the held slot either.
    const third = await createBooking(nc, a.id, visitor(botY, { requestedSlot: '2027-06-02T09:00:00Z' }));
    expect((await a.api.patch(`/bookings/${third.id}`, { action: 'confirm' })).status).toBe(200);
    expect((await a.api.patch(`/bookings/${third.id}`, { action: 'reschedule', requestedSlot: slot })).status).toBe(409);
  });

  it('other workspaces’ bookings are 404; restricted tokens see and change only their bots’ bookings', async () => {
    const ofA = await createBooking(nc, a.id, visitor(botY));
    expect((await b.api.get(`/bookings/${ofA.id}`)).status).toBe(404);
    expect((await b.api.patch(`/bookings/${ofA.id}`, { action: 'confirm' })).status).toBe(404);
    expect((await b.api.get('/bookings')).body.data).toEqual([]);
    expect((await b.api.get(`/bookings?chatbotId=${botX}`)).status).toBe(404);

    const onlyX = await newToken(a.id, ['--scopes', 'bookings:read,bookings:write', '--bots', botX]);
    const listed = await onlyX.api.get('/bookings');
    expect(listed.status).toBe(200);
    expect(listed.body.data.length).toBeGreaterThan(0);
    expect(listed.body.data.every((x: any) => x.chatbot_id === botX)).toBe(true);
    expect((await onlyX.api.get(`/bookings?chatbotId=${botY}`)).status).toBe(403);
    expect((await onlyX.api.get(`/bookings/${ofA.id}`)).status).toBe(403);
    expect((await onlyX.api.patch(`/bookings/${ofA.id}`, { action: 'confirm' })).status).toBe(403);
    const mine = await createBooking(nc, a.id, visitor(botX));
    expect((await onlyX.api.get(`/bookings/${mine.id}`)).status).toBe(200);

    const readOnly = await newToken(a.id, ['--scopes', 'bookings:read']);
    expect((await readOnly.api.get(`/bookings/${mine.id}`)).status).toBe(200);
    expect((await readOnly.api.patch(`/bookings/${mine.id}`, { action: 'confirm' })).status).toBe(403);
    const noScope = await newToken(a.id, ['--scopes', 'bots:read']);
    expect((await noScope.api.get('/bookings')).status).toBe(403);
  });
});

describe('bookings: visitor e-mails over SMTP (mini system with SMTP_URL)', () => {
  interface Received {
    from: string;
    to: string[];
    raw: string;
  }
  const received: Received[] = [];
  let smtp: SMTPServer;
  let mini: MiniSystem;
  let nc: NatsConnection;
  let db: Client;

  beforeAll(async () => {
    const port = await freePort();
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        let raw = '';
        stream.on('data', (d: Buffer) => (raw += d.toString('utf8')));
        stream.on('end', () => {
          received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw });
          callback();
        });
      },
    });
    smtp.on('error', () => undefined); // a client gone inside a transaction: see e2e/support/smtp-capture.ts
    await new Promise<void>((r) => smtp.listen(port, '127.0.0.1', () => r()));
    mini = await startMiniSystem(['gateway', 'bots', 'bookings'], { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Acme Support <bookings@acme.test>', MAIL_POLL_MS: '200' });
    nc = await connect({ servers: mini.env['NATS_URL'] });
    db = new Client({ connectionString: mini.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await nc?.drain();
    await db?.end();
    await mini?.stop();
    await new Promise<void>((r) => (smtp ? smtp.close(() => r()) : r()));
  });

  const unfold = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/\r?\n[ \t]+/g, ' ');
  const mailsTo = (address: string) => received.filter((m) => m.to.includes(address));

  it('e-mails the visitor on reject (with the comment), confirm, reschedule (in the visitor’s time zone) and cancel', async () => {
    const ws = await admin<{ id: string }>(['workspace', 'create', '--name', 'Mail', '--plan', 'growth'], mini.databaseUrl);
    const tok = (await admin<{ token: string }>(['token', 'create', '--workspace', ws.id, '--scopes', 'all'], mini.databaseUrl)).token;
    const api = client(tok, mini.baseUrl);
    const bot = (await api.post('/bots', { name: 'Mail bot' })).body.data.id;

    const rej = await createBooking(nc, ws.id, visitor(bot, { email: 'rita@example.com', requestedSlot: '2027-01-05T14:30:00Z', timeZone: 'Asia/Tokyo' }));
    expect((await api.patch(`/bookings/${rej.id}`, { action: 'reject', rejectionComment: 'We are fully booked that week' })).status).toBe(200);
    const [rejMail] = await waitFor(async () => mailsTo('rita@example.com'), (m) => m.length >= 1, 15000);
    const rejRaw = unfold(rejMail!.raw);
    expect(rejMail!.from).toBe('bookings@acme.test');
    expect(rejRaw).toMatch(/^From: Acme Support <bookings@acme\.test>/m);
    expect(rejRaw).toMatch(/^To: rita@example\.com/m);
    expect(rejRaw).toMatch(/^Subject: Your booking request was declined/m);
    expect(rejRaw).toContain('We are fully booked that week');
    const [row] = (await db.query(`SELECT id, status, sent_at FROM bookings.emails WHERE booking_id = $1`, [rej.id])).rows;
    expect(rejRaw).toContain(`Message-ID: <${row.id}@support-agent>`);
    await waitFor(async () => (await db.query(`SELECT status FROM bookings.emails WHERE id = $1`, [row.id])).rows[0].status, (st) => st === 'sent', 5000);

    const bk = await createBooking(nc, ws.id, visitor(bot, { email: 'bert@example.com', requestedSlot: '2027-01-05T14:30:00Z', timeZone: 'Europe/Berlin' }));
    expect((await api.patch(`/bookings/${bk.id}`, { action: 'confirm' })).status).toBe(200);
    expect((await api.patch(`/bookings/${bk.id}`, { action: 'reschedule', requestedSlot: '2027-01-07T09:15:00-05:00' })).status).toBe(200);
    expect((await api.patch(`/bookings/${bk.id}`, { action: 'cancel', cancelComment: 'The shop is closed for inventory' })).status).toBe(200);
    const bert = await waitFor(async () => mailsTo('bert@example.com'), (m) => m.length >= 3, 15000);
    const subjects = bert.map((m) => /^Subject: (.*)$/m.exec(unfold(m.raw))?.[1]?.trim());
    expect(subjects).toEqual(['Your booking is confirmed', 'Your booking was rescheduled', 'Your booking was cancelled']);
    // 09:15 at UTC-5 is 14:15 UTC, 15:15 in Berlin (CET).
    const moved = unfold(bert[1]!.raw);
    expect(moved).toContain('7 January 2027 at 15:15');
    expect(moved).toContain('Europe/Berlin');
    expect(unfold(bert[0]!.raw)).toContain('15:30');
    expect(unfold(bert[2]!.raw)).toContain('The shop is closed for inventory');
    expect(received).toHaveLength(4);

    // Operators see the same outbox through the admin CLI, which asks the bookings service (bookings.email.list).
    const listed = await waitFor(
      async () => (await admin<{ data: { booking_id: string; kind: string; to: string; status: string }[] }>(['mail', 'list', '--workspace', ws.id], mini.databaseUrl, mini.env['NATS_URL'])).data,
      (d) => d.length === 4 && d.every((m) => m.status === 'sent'),
      10000,
    );
    expect(listed.map((m) => [m.booking_id, m.kind, m.to])).toEqual([
      [bk.id, 'cancel', 'bert@example.com'],
      [bk.id, 'reschedule', 'bert@example.com'],
      [bk.id, 'confirm', 'bert@example.com'],
      [rej.id, 'reject', 'rita@example.com'],
    ]);
  });
});
