import * as fs from 'node:fs';
import * as path from 'node:path';
import { request } from './support/api';
import { newWorkspace, TestWorkspace, uniqueName } from './support/fixtures';
import { errorOf, mcpConnect, McpSession } from './support/mcp';
import { e2eState } from './support/state';
import { newWidgetSession, widgetUrl } from './support/widget';

/**
 * Issue 30: a date-time of the right shape that names no real instant (2026-02-30, 29 February of
 * a common year, 04-31, 11-31, year 0000, hour 24) got a 500 from the widget's booking route
 * (PostgreSQL refused it) and was silently moved to 2 March by PATCH /v1/bookings/{id}. One rule
 * in the contracts refuses it with a validation issue on every surface: the widget, REST and MCP.
 */
const IMPOSSIBLE = ['2026-02-30T10:00:00Z', '2026-02-29T10:00:00Z', '2026-04-31T10:00:00+02:00', '2026-11-31T10:00:00Z', '0000-01-01T10:00:00Z', '2026-03-01T24:00:00Z'];
const VALID_SLOT = '2027-03-01T10:00:00+01:00';

describe('impossible calendar dates are a validation 400 on every surface (issue 30)', () => {
  const s = e2eState();
  let ws: TestWorkspace;
  let bot: string;
  let bookingId: string;
  let mcp: McpSession;

  const visitor = (requestedSlot: string, sessionId?: string) => ({ ...(sessionId ? { sessionId } : {}), name: 'Lin', email: 'lin@example.com', phone: '+65 6123 4567', requestedSlot, timeZone: 'Asia/Singapore' });
  const slotOf = async () => (await ws.api.get(`/bookings/${bookingId}`)).body.data.requested_slot as string;

  beforeAll(async () => {
    ws = await newWorkspace(['--plan', 'scale']);
    bot = (await ws.api.post('/bots', { name: uniqueName() })).body.data.id;
    const created = await request('POST', '', visitor(VALID_SLOT), { baseUrl: widgetUrl(bot, 'bookings') });
    expect(created.status).toBe(201);
    bookingId = created.body.data.id;
    mcp = await mcpConnect(ws.token);
  });

  afterAll(async () => {
    await mcp?.close();
  });

  it.each(IMPOSSIBLE)('%s: widget booking, REST reschedule and the MCP tool', async (slot) => {
    const before = await slotOf();

    const widget = await request('POST', '', visitor(slot, await newWidgetSession(bot)), { baseUrl: widgetUrl(bot, 'bookings') });
    expect(widget.status).toBe(400);
    expect(widget.body).toEqual({ success: false, error: expect.objectContaining({ issues: [expect.objectContaining({ path: ['body', 'requestedSlot'] })] }) });

    const rest = await ws.api.patch(`/bookings/${bookingId}`, { action: 'reschedule', requestedSlot: slot });
    expect(rest.status).toBe(400);
    expect(rest.body).toEqual({ success: false, error: expect.objectContaining({ issues: [expect.objectContaining({ path: ['body', 'requestedSlot'] })] }) });

    const tool = await mcp.call('update_booking', { id: bookingId, action: 'reschedule', requestedSlot: slot });
    expect(errorOf(tool)).toEqual(expect.objectContaining({ status: 400 }));

    // Nothing moved.
    expect(await slotOf()).toBe(before);
  });

  it('the widget replies cursor and the console-style keyset dates are refused too, never a 500', async () => {
    const sessionId = await newWidgetSession(bot);
    for (const after of IMPOSSIBLE) {
      const res = await request('POST', '', { sessionId, after }, { baseUrl: widgetUrl(bot, 'replies') });
      expect([after, res.status]).toEqual([after, 400]);
    }
  });

  it("the bookings service's log never repeats a visitor's impossible value", () => {
    for (const file of fs.readdirSync(s.logDir).filter((f) => f.endsWith('.log'))) {
      const text = fs.readFileSync(path.join(s.logDir, file), 'utf8');
      for (const slot of IMPOSSIBLE) expect([file, slot, text.includes(slot)]).toEqual([file, slot, false]);
    }
  });
});
