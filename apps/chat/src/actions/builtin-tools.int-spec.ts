import 'reflect-metadata';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { NatsConnection, connect } from 'nats';
import { appDatabaseEnv } from '@sa/config';
import { CallerContext, EventEnvelope } from '@sa/contracts';
import { RpcClient } from '@sa/messaging';
import { PrivateNats, createTestDatabase, startPrivateNats } from '@sa/testing';
import { BuiltinContext, builtinTools } from './builtin-tools';
import type { LoopTool } from './tool-loop';

// The built-in actions (issue 34, item 2) against the real bots, bookings and leads services: the
// built apps (dist/, built by the integration global setup) started on a private nats-server and
// a fresh migrated database, called over NATS exactly as chat calls them. request_booking makes
// the widget form's pending booking and its booking.created; the form's rules refuse what the form
// refuses, as an outcome; capture_contact makes a `conversational` lead and lead.created says so;
// handoff_to_person only tells the turn.

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const SERVICES = ['bots', 'bookings', 'leads'] as const;

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let nats: PrivateNats;
let nc: NatsConnection;
let rpc: RpcClient;
const children: ChildProcess[] = [];
const events: EventEnvelope[] = [];

const tenantId = randomUUID();
let botId: string;
let otherBotId: string;

const entitlements = { plan: 'scale', botSlots: 10, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 25000, pagesPerBot: 2000, widgetMessagesPerBotPerMonth: 10000, webhooks: true };

/** A caller of the workspace: an API token for every bot by default, or the widget's (one bot, no token). */
function callerOf(botIds: string[] | null = null, tokenId: string | null = randomUUID()): CallerContext {
  return { tenantId, tokenId, scopes: ['chat:invoke'], botIds, requestId: `req-${randomBytes(4).toString('hex')}`, entitlements } as CallerContext;
}

/** The owner reading the workspace's records (GET /v1/bookings, /v1/leads). */
const owner = () => ({ ...callerOf(), scopes: ['bookings:read', 'leads:read'] }) as CallerContext;

function start(app: (typeof SERVICES)[number]): ChildProcess {
  const base = {
    PATH: process.env['PATH'],
    DATABASE_URL: db.url,
    NATS_URL: nats.url,
    OPS_PORT: '0',
    LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent',
    LOG_FORMAT: 'json',
    NODE_ENV: 'test',
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
  };
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'apps', app, 'src', 'main.js')], { cwd: ROOT, env: { ...base, ...appDatabaseEnv(app, base) }, stdio: 'ignore' });
  children.push(child);
  return child;
}

async function waitFor<T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch((e: unknown) => e as T);
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${v instanceof Error ? v.message : JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const eventsOf = (type: string) => events.filter((e) => e.type === type);

beforeAll(async () => {
  db = await createTestDatabase('sa_test_chat_builtins');
  nats = await startPrivateNats();
  nc = await connect({ servers: nats.url, name: 'builtin-tools-int' });
  // Every event the services publish (the outbox relays' JetStream publishes reach core subscribers too).
  nc.subscribe('events.>', { callback: (_err, msg) => events.push(JSON.parse(new TextDecoder().decode(msg.data)) as EventEnvelope) });
  rpc = new RpcClient(nc, 5000);
  for (const app of SERVICES) start(app);
  const bot = await waitFor('the bots service', () => rpc.send('bots.bot.create', { name: 'Clinic' }, callerOf()), (b) => !(b instanceof Error));
  botId = bot.id;
  otherBotId = (await rpc.send('bots.bot.create', { name: 'Shop' }, callerOf())).id;
  await waitFor('the bookings service', () => rpc.send('bookings.booking.list', {}, owner()), Array.isArray);
  await waitFor('the leads service', () => rpc.send('leads.lead.list', {}, owner()), Array.isArray);
}, 90_000);

afterAll(async () => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await exited;
    }
  }
  await nc?.drain();
  await nats?.stop();
  await db?.drop();
});

/** The built-in tools of a conversation of the bot, all switched on; `handoffs` counts onHandoff calls. */
function conversation(over: Partial<BuiltinContext> = {}): { tools: Map<string, LoopTool>; sessionId: string; handoffs: { count: number } } {
  const handoffs = { count: 0 };
  const ctx: BuiltinContext = {
    rpc,
    caller: callerOf([botId], null),
    chatbotId: botId,
    sessionId: `s-${randomUUID()}`,
    channel: 'widget',
    language: 'en',
    onHandoff: () => handoffs.count++,
    ...over,
  };
  const tools = builtinTools({ booking: true, lead: true, handoff: true }, ctx);
  return { tools: new Map(tools.map((t) => [t.name, t])), sessionId: ctx.sessionId, handoffs };
}

const run = (tool: LoopTool | undefined, input: Record<string, unknown>) => tool!.run(input, new AbortController().signal);

/** The bot's bookings of this visitor (bookings do not show their session; each test's visitors have their own e-mails). */
const bookingsOf = async (email: string) => (await rpc.send('bookings.booking.list', { chatbotId: botId }, owner())).filter((b) => b.email === email);

describe('request_booking', () => {
  it("creates the widget form's pending booking for the conversation's session, and booking.created", async () => {
    const { tools, sessionId } = conversation();
    const tool = tools.get('request_booking');
    expect(tool).toMatchObject({ source: 'builtin', confirm: true, verifiedOnly: false, label: 'Requesting your booking…' });
    // Members the model has no say in (the bot, the session) are dropped, not passed on.
    const out = await run(tool, {
      name: 'Ann Lee',
      email: 'ann@example.com',
      phone: '+49 30 1234567',
      requestedSlot: '2027-03-01T10:00:00+01:00',
      timeZone: 'Europe/Berlin',
      notes: 'Check-up',
      chatbotId: otherBotId,
      sessionId: 'someone-else',
    });
    expect(out).toMatchObject({ ok: true, error: null, status: null });
    const result = JSON.parse(out.result) as { booking_id: string; status: string; requested_slot: string };
    expect(result).toMatchObject({ status: 'pending', requested_slot: '2027-03-01T09:00:00.000Z' });

    // Read back as the owner reads it (GET /v1/bookings/{id}).
    const booking = await rpc.send('bookings.booking.get', { id: result.booking_id }, owner());
    expect(booking).toMatchObject({
      status: 'pending',
      chatbot_id: botId,
      name: 'Ann Lee',
      email: 'ann@example.com',
      phone: '+49 30 1234567',
      notes: 'Check-up',
      time_zone: 'Europe/Berlin',
      requested_slot: '2027-03-01T09:00:00.000Z',
    });
    const created = await waitFor('booking.created', async () => eventsOf('booking.created').find((e) => (e.data as { booking_id: string }).booking_id === booking.id), Boolean, 15_000);
    expect(created).toMatchObject({ tenant_id: tenantId, data: { chatbot_id: botId, session_id: sessionId, status: 'pending', requested_slot: '2027-03-01T09:00:00.000Z' } });
  });

  it('refuses what the form refuses, as an outcome the model can relay, and books nothing', async () => {
    const { tools } = conversation();
    const tool = tools.get('request_booking');
    const base = { name: 'Ann', email: 'refused@example.com', phone: '+4930123' };
    // The booking service's own rules (the form's): a time without a UTC offset, a day that does not exist, a bad e-mail.
    for (const [input, words] of [
      [{ ...base, requestedSlot: 'next Tuesday at 10' }, /requestedSlot must be an ISO 8601 date-time with a UTC offset/],
      [{ ...base, requestedSlot: '2027-02-30T10:00:00+01:00' }, /requestedSlot must be an ISO 8601 date-time/],
      [{ ...base, email: 'not-an-email' }, /email must be an email/],
      [{ ...base, name: '   ' }, /name/],
    ] as const) {
      const out = await run(tool, input);
      expect(out).toMatchObject({ ok: false, error: 'invalid_input' });
      expect(out.result).toMatch(words);
      expect(out.result).toMatch(/^The booking was not requested: .*Ask the visitor/);
    }
    // The tool's schema: a missing phone, or a number where text goes, never reaches the service.
    expect(await run(tool, { name: 'Ann', email: 'refused@example.com' })).toMatchObject({ ok: false, error: 'invalid_input', result: expect.stringMatching(/phone: is required/) });
    expect(await run(tool, { ...base, phone: 4930123 })).toMatchObject({ ok: false, error: 'invalid_input', result: expect.stringMatching(/phone: must be string/) });
    expect(await bookingsOf('refused@example.com')).toEqual([]);
  });

  it("works for an API token's conversation (a caller for every bot), and never for a caller restricted to another bot", async () => {
    const api = conversation({ caller: callerOf(null), channel: 'api' });
    const out = await run(api.tools.get('request_booking'), { name: 'Bo', email: 'bo@example.com', phone: '+4930999' });
    expect(out.ok).toBe(true);
    expect(await bookingsOf('bo@example.com')).toEqual([expect.objectContaining({ status: 'pending', requested_slot: null })]);

    const stranger = conversation({ caller: callerOf([otherBotId]) });
    const refused = await run(stranger.tools.get('request_booking'), { name: 'Eve', email: 'eve@example.com', phone: '+4930888' });
    expect(refused).toMatchObject({ ok: false, error: 'bot_access_denied', result: 'The booking was not requested. Tell the visitor that it did not work.' });
    expect(await bookingsOf('eve@example.com')).toEqual([]);
  });

  it('a service that does not answer is an outcome too, never an exception', async () => {
    // A NATS where no bookings service runs (no responders).
    const empty = await startPrivateNats();
    const lonely = await connect({ servers: empty.url });
    try {
      const { tools } = conversation({ rpc: new RpcClient(lonely, 2000) });
      const out = await run(tools.get('request_booking'), { name: 'Ann', email: 'nobody-home@example.com', phone: '+4930123' });
      expect(out).toMatchObject({ ok: false, error: 'unavailable', result: expect.stringMatching(/not available right now/) });
    } finally {
      await lonely.drain();
      await empty.stop();
    }
  });
});

describe('capture_contact', () => {
  it('captures the contact as a conversational lead of the session, and lead.created says so', async () => {
    const { tools, sessionId } = conversation({ channel: 'api', caller: callerOf(null) });
    const tool = tools.get('capture_contact');
    expect(tool).toMatchObject({ source: 'builtin', confirm: true });
    const out = await run(tool, { name: 'Jane Smith', email: 'Jane@Acme.io', phone: '+44 20 7946 0958', company: 'Acme', message: 'We want the premium plan this month' });
    expect(out).toMatchObject({ ok: true, error: null });
    const { lead_id } = JSON.parse(out.result) as { lead_id: string };

    const lead = await rpc.send('leads.lead.get', { leadId: lead_id }, owner());
    expect(lead).toMatchObject({ chatbot_id: botId, session_id: sessionId, captured_via: 'conversational', channel: 'api', name: 'Jane Smith', email: 'jane@acme.io', phone: '+442079460958', company: 'Acme' });
    const created = await waitFor('lead.created', async () => eventsOf('lead.created').find((e) => (e.data as { session_id: string }).session_id === sessionId), Boolean, 15_000);
    expect(created).toMatchObject({ tenant_id: tenantId, data: { chatbot_id: botId, captured_via: 'conversational', email: 'jane@acme.io' } });

    // Once more in the same session: the same lead, still one lead.created.
    expect(await run(tool, { email: 'jane@acme.io', phone: '+44 20 7946 0000' })).toMatchObject({ ok: true });
    const leads = (await rpc.send('leads.lead.list', { chatbotId: botId }, owner())).filter((l) => l.session_id === sessionId);
    expect(leads).toEqual([expect.objectContaining({ id: lead_id, captured_via: 'conversational', phone: '+442079460000' })]);
    await new Promise((r) => setTimeout(r, 300));
    expect(eventsOf('lead.created').filter((e) => (e.data as { session_id: string }).session_id === sessionId)).toHaveLength(1);
  });

  it("refuses what the lead form refuses (an e-mail or a phone is needed), and a lead the form made stays 'form'", async () => {
    const { tools, sessionId } = conversation();
    const tool = tools.get('capture_contact');
    const out = await run(tool, { name: 'Nobody' });
    expect(out).toMatchObject({ ok: false, error: 'invalid_input', result: expect.stringMatching(/An email or a phone is required/) });
    expect(await run(tool, { email: 'bad' })).toMatchObject({ ok: false, error: 'invalid_input', result: expect.stringMatching(/email must be an email/) });
    expect((await rpc.send('leads.lead.list', { chatbotId: botId }, owner())).filter((l) => l.session_id === sessionId)).toEqual([]);

    // The widget's lead form first (leads.lead.capture, as the gateway sends it), then the bot: still `form`.
    await rpc.send('leads.lead.capture', { chatbotId: botId, sessionId, email: 'form@example.com' }, callerOf([botId], null));
    expect(await run(tool, { email: 'form@example.com', name: 'Fay' })).toMatchObject({ ok: true });
    const [lead] = (await rpc.send('leads.lead.list', { chatbotId: botId }, owner())).filter((l) => l.session_id === sessionId);
    expect(lead).toMatchObject({ captured_via: 'form', name: 'Fay', channel: 'widget' });
  });
});

describe('handoff_to_person', () => {
  it('tells the turn (which records the handoff), needs no confirmation, and calls no service', async () => {
    const { tools, handoffs } = conversation();
    const tool = tools.get('handoff_to_person');
    expect(tool).toMatchObject({ source: 'builtin', confirm: false, verifiedOnly: false, parameters: { type: 'object', properties: {} } });
    const seen: string[] = [];
    const sub = nc.subscribe('>', { callback: (_e, m) => seen.push(m.subject) });
    const out = await run(tool, {});
    await nc.flush();
    sub.unsubscribe();
    expect(out).toMatchObject({ ok: true, error: null });
    expect(handoffs.count).toBe(1);
    expect(seen.filter((s) => !s.startsWith('_INBOX') && !s.startsWith('$JS') && !s.startsWith('events.'))).toEqual([]);
  });
});
