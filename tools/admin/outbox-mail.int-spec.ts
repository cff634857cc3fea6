import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@sa/db';
import { createTestDatabase } from '@sa/testing';
import { listMail } from './outbox-mail';

// listMail (admin CLI `mail list`) against a migrated database.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;

beforeAll(async () => {
  db = await createTestDatabase('sa_test_outbox_mail');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('bookings'), applicationName: 'outbox-mail-int', poolSize: 2 })).initialize();
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

it('lists a workspace’s or a booking’s e-mails newest first, as JSON-friendly objects', async () => {
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

  const all = await listMail(ds, { workspaceId: ws });
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
  expect((await listMail(ds, { bookingId: b1 })).map((m) => m.kind)).toEqual(['cancel', 'confirm']);
  expect((await listMail(ds, { workspaceId: ws, status: 'pending', limit: 1 })).map((m) => m.kind)).toEqual(['reject']);
  await expect(listMail(ds, {})).rejects.toThrow(/workspace id or a booking id/);
  await expect(listMail(ds, { workspaceId: 'nope' })).rejects.toThrow(/UUID/);
});
