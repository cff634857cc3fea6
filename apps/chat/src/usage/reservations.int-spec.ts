import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@sa/db';
import { createTestDatabase } from '@sa/testing';
import { loadChatConfig } from '../config/chat.config';
import { MessagesRepository } from '../conversations/messages.repository';
import { ReservationSweeper } from './reservation-sweeper';

// Issue 36: a turn's reserved message is held under the turn and its replica; stored turns settle
// it, failed ones give it back once, and the replicas still alive give back what a dead one held.
// Against a migrated database, connected as the chat service's role.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let messages: MessagesRepository;
const silent = pino({ level: 'silent' });

beforeAll(async () => {
  db = await createTestDatabase('sa_test_chat_reservations');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('chat'), applicationName: 'chat-reservations-int', poolSize: 4 })).initialize();
  messages = new MessagesRepository(ds);
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

const now = new Date();
const used = async (tenantId: string) => messages.messagesInMonth(tenantId, now);
const widgetUsed = async (tenantId: string, botId: string) =>
  Number((await ds.query(`SELECT coalesce(sum(messages), 0)::int AS n FROM chat.widget_usage WHERE tenant_id = $1 AND chatbot_id = $2`, [tenantId, botId]))[0].n);
const open = async (holder: string) => Number((await ds.query(`SELECT count(*)::int AS n FROM chat.turn_reservations WHERE holder = $1`, [holder]))[0].n);

it('a hold is written only with a counted message; release gives it back once; settle keeps it counted', async () => {
  const ws = randomUUID();
  const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
  expect(await messages.reserveMessage(ds.manager, ws, 2, now, { turnId: a, holder: 'r1' })).toEqual({ ok: true, used: 1 });
  expect(await messages.reserveMessage(ds.manager, ws, 2, now, { turnId: b, holder: 'r1' })).toEqual({ ok: true, used: 2 });
  // Over the limit: nothing counted, nothing held.
  expect(await messages.reserveMessage(ds.manager, ws, 2, now, { turnId: c, holder: 'r1' })).toEqual({ ok: false, used: 2 });
  expect(await open('r1')).toBe(2);

  expect(await messages.releaseTurn(ds.manager, a)).toBe(true);
  expect(await messages.releaseTurn(ds.manager, a)).toBe(false);
  expect(await used(ws)).toBe(1);
  await ds.transaction((m) => messages.settleTurn(m, b));
  expect(await messages.releaseTurn(ds.manager, b)).toBe(false);
  expect(await used(ws)).toBe(1);
  expect(await open('r1')).toBe(0);
});

it('widget turns are held against the bot’s widget budget and given back there', async () => {
  const [ws, bot] = [randomUUID(), randomUUID()];
  const turn = randomUUID();
  expect(await messages.reserveWidgetMessage(ds.manager, ws, bot, 3, now, { turnId: turn, holder: 'r-widget' })).toEqual({ ok: true, used: 1 });
  expect(await used(ws)).toBe(0);
  expect(await widgetUsed(ws, bot)).toBe(1);
  expect(await messages.releaseTurn(ds.manager, turn)).toBe(true);
  expect(await widgetUsed(ws, bot)).toBe(0);
});

it('a dead replica’s reservations are given back by a live replica’s sweep; a live one’s are kept', async () => {
  const ws = randomUUID();
  const config = (replicaId: string) => ({ ...loadChatConfig({}), replicaId, reservationSweepMs: 60_000, reservationOrphanMs: 500 });
  const live = new ReservationSweeper(messages, config(`live-${randomUUID()}`), silent);
  const dead = new ReservationSweeper(messages, config(`dead-${randomUUID()}`), silent);
  await live.onApplicationBootstrap();
  await dead.onApplicationBootstrap();
  for (let i = 0; i < 3; i++) await messages.reserveMessage(ds.manager, ws, 100, now, { turnId: randomUUID(), holder: dead.replicaId });
  await messages.reserveMessage(ds.manager, ws, 100, now, { turnId: randomUUID(), holder: live.replicaId });
  expect(await used(ws)).toBe(4);
  // dead is killed: it says nothing more (its sweep, once a minute here, never comes).

  // Not yet silent long enough: nothing is given back.
  await live.sweep();
  expect(await used(ws)).toBe(4);
  await new Promise((r) => setTimeout(r, 700));
  // Two live replicas sweep at once: each message is given back once.
  await Promise.all([live.sweep(), live.sweep()]);
  expect(await used(ws)).toBe(1);
  expect(await open(dead.replicaId)).toBe(0);
  expect(await open(live.replicaId)).toBe(1);

  // A replica that stops gives back what it still holds, and leaves.
  await live.onApplicationShutdown();
  expect(await used(ws)).toBe(0);
  expect((await ds.query(`SELECT count(*)::int AS n FROM chat.replicas WHERE id = $1`, [live.replicaId]))[0].n).toBe(0);
  await dead.onApplicationShutdown();
});
