import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CallerContext, EMAILS_LIST_MAX, EmailView } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { DomainError } from '@sa/errors';
import { validateEnvelope } from '@sa/messaging';
import { createTestDatabase } from '@sa/testing';
import { MailHandler } from './mail.handler';
import { MailRepository } from './mail.repository';

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
