import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CallerContext } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { DomainError } from '@sa/errors';
import { Outbox } from '@sa/events';
import { RpcClient } from '@sa/messaging';
import { createTestDatabase } from '@sa/testing';
import { loadBookingsConfig } from '../config/bookings.config';
import { MailRepository } from '../mail/mail.repository';
import { MailMessage, MailTransport } from '../mail/mail.transport';
import { MailWorker } from '../mail/mail.worker';
import { BookingsRepository } from './bookings.repository';
import { BookingsService } from './bookings.service';

// The bookings service against the real PostgreSQL: state rules under row locks, the slot held by
// a confirmed booking (partial unique index) under concurrency, the e-mail outbox written with
// each change, the mail worker, and the admin listing.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let service: BookingsService;
const tenant = randomUUID();
const bot = randomUUID();
const otherBot = randomUUID();

const ctxOf = (tenantId: string, botIds: string[] | null = null) =>
  ({ tenantId, tokenId: randomUUID(), scopes: ['bookings:read', 'bookings:write'], botIds, requestId: randomUUID(), entitlements: {} }) as unknown as CallerContext;

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => silent } as never;

beforeAll(async () => {
  db = await createTestDatabase('sa_test_bookings');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('bookings'), applicationName: 'bookings-int', poolSize: 10 })).initialize();
  const rpc = { send: async (_s: string, req: { ids: string[] }) => ({ found: req.ids.filter((id) => id === bot || id === otherBot) }) } as unknown as RpcClient;
  service = new BookingsService(new BookingsRepository(ds), rpc, new Outbox('bookings'));
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

const create = (slot = '2027-03-01T10:00:00+01:00', chatbotId = bot, tenantId = tenant) =>
  service.create(ctxOf(tenantId), { chatbotId, name: 'Ann', email: 'ann@example.com', phone: '+4912345', requestedSlot: slot, timeZone: 'Europe/Berlin' });

interface MailRow {
  id: string;
  kind: string;
  to: string;
  body_text: string;
  status: string;
  attempts: number;
  last_error: string | null;
  sent_at: Date | null;
}

/** The e-mails of a booking (or of the tenant with `status`), newest first. */
async function listMail(_ds: DataSource, f: { bookingId?: string; workspaceId?: string; status?: string }): Promise<MailRow[]> {
  return ds.query(
    `SELECT id, kind, to_address AS to, body_text, status, attempts, last_error, sent_at FROM bookings.emails
      WHERE ($1::uuid IS NULL OR booking_id = $1::uuid) AND ($2::uuid IS NULL OR tenant_id = $2::uuid) AND ($3::text IS NULL OR status = $3::text)
      ORDER BY created_at DESC, id DESC`,
    [f.bookingId ?? null, f.workspaceId ?? null, f.status ?? null],
  );
}

const code = async (p: Promise<unknown>) => p.then(() => 'ok', (e: DomainError) => `${e.code}${e.details['reason'] ? `:${e.details['reason']}` : ''}`);

describe('bookings service', () => {
  it('creates a pending booking and its booking.created event in one transaction', async () => {
    const b = await create();
    expect(b).toEqual(expect.objectContaining({ status: 'pending', chatbot_id: bot, requested_slot: '2027-03-01T09:00:00.000Z', time_zone: 'Europe/Berlin' }));
    const [ev] = await ds.query(`SELECT type, payload FROM bookings.outbox WHERE payload->'data'->>'booking_id' = $1`, [b.id]);
    expect(ev.type).toBe('booking.created');
    expect(await code(service.create(ctxOf(tenant), { chatbotId: randomUUID(), name: 'X', email: 'x@example.com', phone: '123' }))).toBe('not_found');
  });

  it('applies the transitions of spec part 3 and writes one e-mail per change', async () => {
    const b = await create('2027-03-02T10:00:00Z');
    const ctx = ctxOf(tenant);
    const confirmed = await service.update(ctx, { id: b.id, action: 'confirm' });
    expect(confirmed.status).toBe('confirmed');
    expect(confirmed.confirmed_at).not.toBeNull();
    expect(await code(service.update(ctx, { id: b.id, action: 'confirm' }))).toBe('conflict:already_decided');
    expect(await code(service.update(ctx, { id: b.id, action: 'reject' }))).toBe('conflict:already_decided');
    const moved = await service.update(ctx, { id: b.id, action: 'reschedule', requestedSlot: '2027-03-03T11:00:00+01:00' });
    expect(moved).toEqual(expect.objectContaining({ status: 'confirmed', requested_slot: '2027-03-03T10:00:00.000Z' }));
    const cancelled = await service.update(ctx, { id: b.id, action: 'cancel', cancelComment: 'Closed' });
    expect(cancelled.status).toBe('cancelled');
    expect(await code(service.update(ctx, { id: b.id, action: 'cancel' }))).toBe('conflict:not_active');
    expect(await code(service.update(ctx, { id: b.id, action: 'reschedule', requestedSlot: '2027-03-04T10:00:00Z' }))).toBe('conflict:not_active');
    const mails = await listMail(ds, { bookingId: b.id });
    expect(mails.map((m) => m.kind).reverse()).toEqual(['confirm', 'reschedule', 'cancel']);
    expect(mails.every((m) => m.status === 'pending' && m.to === 'ann@example.com')).toBe(true);
    expect(mails[1]!.body_text).toContain('11:00');
    expect(mails[0]!.body_text).toContain('Closed');
  });

  it('a confirmed booking holds its slot: of concurrent confirms exactly one wins, a reschedule onto it is 409', async () => {
    const slot = '2027-04-01T09:00:00Z';
    const [a, b] = [await create(slot), await create(slot)];
    const results = await Promise.all([a, b].map((x) => code(service.update(ctxOf(tenant), { id: x.id, action: 'confirm' }))));
    expect(results.sort()).toEqual(['conflict:slot_taken', 'ok']);
    const c = await create('2027-04-02T09:00:00Z');
    await service.update(ctxOf(tenant), { id: c.id, action: 'confirm' });
    expect(await code(service.update(ctxOf(tenant), { id: c.id, action: 'reschedule', requestedSlot: slot }))).toBe('conflict:slot_taken');
    // Another bot's slot is its own; a pending booking may move onto a held slot.
    const d = await create(slot, otherBot);
    expect(await code(service.update(ctxOf(tenant), { id: d.id, action: 'confirm' }))).toBe('ok');
    const e = await create('2027-04-03T09:00:00Z');
    expect(await code(service.update(ctxOf(tenant), { id: e.id, action: 'reschedule', requestedSlot: slot }))).toBe('ok');
    // Rolled back: the failed change wrote no e-mail.
    expect((await listMail(ds, { bookingId: c.id })).map((m) => m.kind)).toEqual(['confirm']);
  });

  it('other workspaces get 404, restricted tokens 403 for other bots and only their bots in lists', async () => {
    const b = await create('2027-05-01T09:00:00Z', otherBot);
    expect(await code(service.get(ctxOf(randomUUID()), b.id))).toBe('not_found');
    expect(await code(service.update(ctxOf(randomUUID()), { id: b.id, action: 'confirm' }))).toBe('not_found');
    expect(await code(service.get(ctxOf(tenant, [bot]), b.id))).toBe('bot_access_denied');
    expect(await code(service.update(ctxOf(tenant, [bot]), { id: b.id, action: 'reject' }))).toBe('bot_access_denied');
    const listed = await service.list(ctxOf(tenant, [bot]), {});
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((x) => x.chatbot_id === bot)).toBe(true);
    expect(await code(service.list(ctxOf(tenant, [bot]), { chatbotId: otherBot }))).toBe('bot_access_denied');
    const all = await service.list(ctxOf(tenant), { limit: 3 });
    expect(all).toHaveLength(3);
    const created = all.map((x) => x.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    expect((await service.list(ctxOf(tenant), { status: 'cancelled' })).every((x) => x.status === 'cancelled')).toBe(true);
  });
});

describe('mail worker', () => {
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

  it('sends pending e-mails once with a Message-ID, retries failures, gives up after the last attempt', async () => {
    const config = { ...loadBookingsConfig({}), mailMaxAttempts: 2 };
    const worker = new MailWorker(new MailRepository(ds), config, silent, transport);
    const b = await create('2027-06-01T09:00:00Z');
    await service.update(ctxOf(tenant), { id: b.id, action: 'reject', rejectionComment: 'Fully booked' });
    await ds.query(`UPDATE bookings.emails SET status = 'sent' WHERE booking_id <> $1`, [b.id]);
    await Promise.all([worker.sendOne(), worker.sendOne()]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toEqual(expect.objectContaining({ to: 'ann@example.com', subject: expect.stringMatching(/declined/), text: expect.stringContaining('Fully booked') }));
    const [row] = await listMail(ds, { bookingId: b.id });
    expect(sent[0]!.messageId).toBe(`<${row!.id}@support-agent>`);
    expect(row).toEqual(expect.objectContaining({ status: 'sent', attempts: 1, sent_at: expect.any(Date) }));
    expect(await worker.sendOne()).toBe(false);

    await service.update(ctxOf(tenant), { id: (await create('2027-06-02T09:00:00Z')).id, action: 'cancel' });
    fail = 5;
    expect(await worker.sendOne()).toBe(true);
    await ds.query(`UPDATE bookings.emails SET next_attempt_at = now() WHERE status = 'pending'`);
    expect(await worker.sendOne()).toBe(true);
    const failed = (await listMail(ds, { workspaceId: tenant, status: 'failed' }))[0]!;
    expect(failed).toEqual(expect.objectContaining({ kind: 'cancel', attempts: 2, last_error: '454 try later' }));
  });
});
