import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CallerContext, EMAILS_LIST_MAX, EmailView, SendPersonEmailReply } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { DomainError } from '@sa/errors';
import { validateEnvelope } from '@sa/messaging';
import { createTestDatabase } from '@sa/testing';
import { MailHandler } from './mail.handler';
import { ERASED_BODY, MailRepository } from './mail.repository';
import { MailMessage, MailTransport } from './mail.transport';
import { MailWorker } from './mail.worker';
import { loadBookingsConfig } from '../config/bookings.config';

// bookings.email.list (the admin CLI's `mail list`) against a migrated database: the handler as
// the NATS transport calls it, and the envelope checks every handler makes.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let handler: MailHandler;

beforeAll(async () => {
  db = await createTestDatabase('sa_test_booking_mail');
  ds = await new DataSource(dataSourceOptions({ url: db.url, applicationName: 'booking-mail-int', poolSize: 2 })).initialize();
  handler = new MailHandler(new MailRepository(ds));
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

const ctxOf = (tenantId: string) =>
  ({ tenantId, tokenId: null, scopes: ['bookings:read'], botIds: null, requestId: 'admin-cli-test', entitlements: { plan: 'scale', botSlots: 10, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 1, pagesPerBot: 1, widgetMessagesPerBotPerMonth: 1, webhooks: true } }) as CallerContext;

/** The handler as the transport calls it: with the raw envelope, which @RpcHandler validates. */
function list(tenantId: string, data: Record<string, unknown> = {}): Promise<EmailView[]> {
  return (handler.list as unknown as (payload: unknown) => Promise<EmailView[]>)({ ctx: ctxOf(tenantId), data });
}

it('lists a workspace’s e-mails newest first, by booking and status, never another workspace’s', async () => {
  const [ws, other] = [randomUUID(), randomUUID()];
  const booking = async (tenant: string) =>
    (await ds.query(`INSERT INTO bookings.bookings (tenant_id, chatbot_id, name, email, phone) VALUES ($1, $2, 'Ann', 'ann@example.com', '123') RETURNING id`, [tenant, randomUUID()]))[0].id as string;
  const [b1, b2, b3] = [await booking(ws), await booking(ws), await booking(other)];
  const mail = (tenant: string, b: string, kind: string, status = 'pending') =>
    ds.query(`INSERT INTO bookings.emails (tenant_id, booking_id, kind, to_address, subject, body_text, status, sent_at) VALUES ($1, $2, $3, 'ann@example.com', 'S', 'Body', $4, CASE WHEN $4 = 'sent' THEN now() END)`, [tenant, b, kind, status]);
  await mail(ws, b1, 'confirm', 'sent');
  await mail(ws, b1, 'cancel');
  await mail(ws, b2, 'reject');
  await mail(other, b3, 'confirm');

  const all = await list(ws);
  expect(all.map((m) => m.kind)).toEqual(['reject', 'cancel', 'confirm']);
  expect(all[2]).toEqual({
    id: expect.any(String),
    workspace_id: ws,
    booking_id: b1,
    kind: 'confirm',
    to: 'ann@example.com',
    subject: 'S',
    body_text: 'Body',
    status: 'sent',
    attempts: 0,
    last_error: null,
    created_at: expect.stringMatching(/Z$/),
    sent_at: expect.stringMatching(/Z$/),
  });
  expect(JSON.parse(JSON.stringify(all))).toEqual(all);
  expect((await list(ws, { bookingId: b1 })).map((m) => m.kind)).toEqual(['cancel', 'confirm']);
  expect((await list(ws, { status: 'pending', limit: 1 })).map((m) => m.kind)).toEqual(['reject']);
  // Another workspace's booking gives nothing.
  expect(await list(ws, { bookingId: b3 })).toEqual([]);
  expect((await list(other)).map((m) => m.booking_id)).toEqual([b3]);
});

it.each([
  [{ bookingId: 'nope' }],
  [{ status: 'queued' }],
  [{ limit: 0 }],
  [{ limit: EMAILS_LIST_MAX + 1 }],
  [{ workspaceId: randomUUID() }],
])('refuses %j with validation_failed', (data) => {
  let err: unknown;
  try {
    validateEnvelope('bookings.email.list', { ctx: ctxOf(randomUUID()), data });
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(DomainError);
  expect((err as DomainError).code).toBe('validation_failed');
});

describe('bookings.email.send: e-mails to people', () => {
  const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => silent } as never;
  const sent: MailMessage[] = [];
  let fail = 0;
  const transport: MailTransport = {
    send: async (m) => {
      if (fail > 0) {
        fail--;
        throw new Error('454 try later');
      }
      sent.push(m);
    },
    close: () => undefined,
  };
  /** The handler as the transport calls it: no caller context (a password reset has no workspace). */
  const send = (data: Record<string, unknown>) => (handler.send as unknown as (payload: unknown) => Promise<SendPersonEmailReply>)({ data });
  const row = async (id: string) => (await ds.query(`SELECT tenant_id, booking_id, kind, status, attempts, body_text FROM bookings.emails WHERE id = $1`, [id]))[0];
  const link = 'https://console.example.com/accept-invitation#token=SECRET-ONE-TIME';

  beforeEach(async () => {
    sent.length = 0;
    fail = 0;
    // Nothing else pending: the worker below sends only what these tests queue.
    await ds.query(`UPDATE bookings.emails SET status = 'sent' WHERE status = 'pending'`);
  });

  it('queues an invitation, sends it, then erases the body (the link); `mail list` still lists it', async () => {
    const ws = randomUUID();
    const { id } = await send({ kind: 'invitation', to: 'new.admin@example.com', subject: 'You are invited', body_text: `Join us: ${link}`, workspace_id: ws });
    expect(await row(id)).toEqual({ tenant_id: ws, booking_id: null, kind: 'invitation', status: 'pending', attempts: 0, body_text: `Join us: ${link}` });
    const worker = new MailWorker(new MailRepository(ds), loadBookingsConfig({}), silent, transport);
    expect(await worker.sendOne()).toBe(true);
    expect(sent).toEqual([{ from: expect.any(String), to: 'new.admin@example.com', subject: 'You are invited', text: `Join us: ${link}`, messageId: `<${id}@support-agent>` }]);
    expect(await row(id)).toMatchObject({ status: 'sent', attempts: 1, body_text: ERASED_BODY });
    const [listed] = await list(ws);
    expect(listed).toMatchObject({ id, workspace_id: ws, booking_id: null, kind: 'invitation', to: 'new.admin@example.com', status: 'sent', body_text: ERASED_BODY });
    expect(JSON.stringify(await list(ws))).not.toContain('SECRET-ONE-TIME');
  });

  it('keeps the body while retrying, erases it once failed for good; a reset belongs to no workspace', async () => {
    const { id } = await send({ kind: 'password_reset', to: 'ann@example.com', subject: 'Reset your password', body_text: link });
    expect(await row(id)).toMatchObject({ tenant_id: null, booking_id: null, kind: 'password_reset' });
    const worker = new MailWorker(new MailRepository(ds), { ...loadBookingsConfig({}), mailMaxAttempts: 2 }, silent, transport);
    fail = 2;
    expect(await worker.sendOne()).toBe(true);
    expect(await row(id)).toMatchObject({ status: 'pending', attempts: 1, body_text: link });
    await ds.query(`UPDATE bookings.emails SET next_attempt_at = now() WHERE id = $1`, [id]);
    expect(await worker.sendOne()).toBe(true);
    expect(await row(id)).toMatchObject({ status: 'failed', attempts: 2, body_text: ERASED_BODY });
    expect(sent).toEqual([]);
  });

  it('a handoff e-mail (issue 19) belongs to its workspace and keeps its body once sent: it carries no single-use link', async () => {
    const ws = randomUUID();
    const body = `A visitor asked to talk to a person.\n\nhttps://console.example.com/w/${ws}/handoff\n`;
    const { id } = await send({ kind: 'handoff', to: 'ada@example.com', subject: 'A visitor asks for a person (Acme)', body_text: body, workspace_id: ws });
    expect(await row(id)).toEqual({ tenant_id: ws, booking_id: null, kind: 'handoff', status: 'pending', attempts: 0, body_text: body });
    expect(await new MailWorker(new MailRepository(ds), loadBookingsConfig({}), silent, transport).sendOne()).toBe(true);
    expect(await row(id)).toMatchObject({ status: 'sent', attempts: 1, body_text: body });
    expect(sent).toEqual([expect.objectContaining({ to: 'ada@example.com', text: body })]);
  });

  it('leaves the body of visitor e-mails (they carry no link), and refuses malformed requests and booking kinds', async () => {
    const ws = randomUUID();
    const [b] = await ds.query(`INSERT INTO bookings.bookings (tenant_id, chatbot_id, name, email, phone) VALUES ($1, $2, 'Ann', 'ann@example.com', '123') RETURNING id`, [ws, randomUUID()]);
    await ds.query(`INSERT INTO bookings.emails (tenant_id, booking_id, kind, to_address, subject, body_text) VALUES ($1, $2, 'confirm', 'ann@example.com', 'S', 'Confirmed')`, [ws, b.id]);
    await new MailWorker(new MailRepository(ds), loadBookingsConfig({}), silent, transport).sendOne();
    expect((await list(ws))[0]).toMatchObject({ kind: 'confirm', status: 'sent', body_text: 'Confirmed' });
    // The table refuses a person's e-mail tied to a booking, and a visitor e-mail without one.
    await expect(ds.query(`INSERT INTO bookings.emails (tenant_id, booking_id, kind, to_address, subject, body_text) VALUES ($1, $2, 'invitation', 'a@b.c', 'S', 'B')`, [ws, b.id])).rejects.toThrow(/emails_booking_check/);
    await expect(ds.query(`INSERT INTO bookings.emails (tenant_id, kind, to_address, subject, body_text) VALUES ($1, 'confirm', 'a@b.c', 'S', 'B')`, [ws])).rejects.toThrow(/emails_booking_check/);
    for (const data of [
      { kind: 'confirm', to: 'a@example.com', subject: 'S', body_text: 'B' },
      { kind: 'invitation', to: 'not an address', subject: 'S', body_text: 'B' },
      { kind: 'invitation', to: 'a@example.com', subject: '', body_text: 'B' },
      { kind: 'invitation', to: 'a@example.com', subject: 'S', body_text: 'B', workspace_id: 'nope' },
      { kind: 'invitation', to: 'a@example.com', subject: 'S', body_text: 'B', booking_id: randomUUID() },
    ]) {
      let err: unknown;
      try {
        validateEnvelope('bookings.email.send', { data });
      } catch (e) {
        err = e;
      }
      expect([data, (err as DomainError)?.code]).toEqual([data, 'validation_failed']);
    }
  });
});
