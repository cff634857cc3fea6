import * as fs from 'node:fs';
import type { Locator, Page, Response as PwResponse } from 'playwright-core';
import { messagesFor } from '../apps/widget/src/i18n';
import { client } from './support/api';
import { waitFor } from './support/apps';
import { expectNoSeriousAxeViolations, useBrowser, widgetScreenshot } from './support/browser';
import { ConsoleSystem, PeopleOfWorkspace, startConsoleSystem, workspaceWithPeople } from './support/console-system';
import { ModelStandIn, questionOf, startModelStandIn, toolCallsOf, toolResultsOf, toolsOf } from './support/model-stand-in';
import { ShopApi, startShopApi } from './support/shop-api';
import { startWidgetSite, WidgetSite } from './support/widget-site';

/**
 * A write action waits for the visitor's confirmation in the widget (issue 34), in Debian's
 * Chromium, on a customer's site under its strict CSP, against the real system (gateway, bots,
 * knowledge, chat and console on PostgreSQL, NATS and Redis). The bot answers through its own
 * OpenAI-compatible model connection: the local stand-in, which asks for `cancel_order
 * {order_id: "A-1001"}` and then answers from the tool result it is given. The action's endpoint
 * is a local HTTPS "shop API" (a self-signed certificate the services trust through
 * NODE_EXTRA_CA_CERTS; 127.0.0.1 and its port allowed by the outbound policy) that records every
 * request and takes 1.5 s to cancel an order.
 *
 * Shown: the answer ends with a confirm/cancel card (the action's label and input as text; focus
 * on it; axe clean; Escape closes the panel and decides nothing); Cancel sends the decision, the
 * shop gets nothing and the model is told it was cancelled; Confirm shows the status line while
 * the shop works, the shop gets exactly one call (a double click sends one decision) and the
 * reply shows; a card whose call no longer waits (decided in another tab) says so (409). Every
 * frame of every stream keeps choices[0].delta.content as a string.
 */
const PASSWORD = 'correct horse battery staple';
const BOT_NAME = 'Northwind Shop';
const QUESTION = 'Please cancel my order A-1001';
const STATUS_TEXT = 'Cancelling your order…';
const SHOP_KEY = 'shop-key-6c1f0e9b2d7a4853';
const REPLY_DONE = ['Done: order A-1001 ', 'is cancelled. ', 'The refund follows within 5 days.'];
const REPLY_KEPT = ['All right, ', 'order A-1001 ', 'stays as it is.'];
const en = messagesFor('en');
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** One POST …/chat the widget made, with its SSE answer parsed. */
interface ChatExchange {
  body: { message: string; sessionId?: string; action_confirmation?: { call_id: string; confirm: boolean } };
  status: number;
  frames: any[];
}

describe('actions in the widget: a write action waits for the visitor (issue 34)', () => {
  const b = useBrowser();
  let sys: ConsoleSystem;
  let model: ModelStandIn;
  let shop: ShopApi;
  let site: WidgetSite;
  let people: PeopleOfWorkspace;
  let botId: string;

  beforeAll(async () => {
    shop = await startShopApi({ delayMs: 1500 });
    // The model: a visitor who wants order A-1001 cancelled gets the tool call; once a tool result
    // is back it answers from it (a result that ran, or the visitor's no).
    model = await startModelStandIn((body) => {
      const last = body.messages.at(-1);
      if (last?.role === 'tool') {
        let ran = false;
        try {
          ran = JSON.parse(String(last.content))?.ok === true;
        } catch {
          ran = false;
        }
        return { pieces: ran ? REPLY_DONE : REPLY_KEPT, gapMs: 60 };
      }
      if (toolsOf(body).some((t) => t.name === 'cancel_order') && /A-1001/.test(questionOf(body))) return { pieces: [], toolCalls: [{ name: 'cancel_order', input: { order_id: 'A-1001' } }] };
      return { pieces: ['How can I help with your order?'] };
    });
    sys = await startConsoleSystem(
      { NODE_EXTRA_CA_CERTS: shop.caFile, MODEL_CONNECTION_MAX_RETRIES: '0' },
      { apps: ['gateway', 'bots', 'knowledge', 'chat', 'console'], allowPorts: [shop.port, Number(new URL(model.baseUrl).port)] },
    );
    site = await startWidgetSite({ gatewayUrl: sys.gatewayUrl });
    people = await workspaceWithPeople(sys, 'Northwind Shop', { owner: 'olga.owner@shop-actions.example', member: 'mia.member@shop-actions.example', password: PASSWORD });
    const ws = `/api/workspaces/${people.ws.id}`;
    const bot = await people.owner.post(`${ws}/bots`, { name: BOT_NAME, language: 'en' });
    expect(bot.status).toBe(201);
    botId = bot.body.data.id;
    const connection = await people.owner.post(`${ws}/models`, { name: 'Shop model', kind: 'openai', base_url: model.baseUrl, model: 'shop-model', api_key: 'sk-shop-model-key' });
    expect(connection.status).toBe(201);
    expect((await people.owner.patch(`${ws}/bots/${botId}/behaviour`, { model_connection_id: connection.body.data.id })).status).toBe(200);
    const action = await people.owner.post(`${ws}/bots/${botId}/actions`, {
      name: 'cancel_order',
      description: 'Cancels an order that has not shipped yet. Use it when the visitor asks to cancel an order and gives its number.',
      method: 'POST',
      url: `${shop.origin}/orders/{order_id}/cancel`,
      parameters: { type: 'object', properties: { order_id: { type: 'string', description: 'The order number, like A-1001' } }, required: ['order_id'] },
      headers: [{ name: 'X-Shop-Key', value: SHOP_KEY }],
      confirm: true,
      status_text: STATUS_TEXT,
    });
    expect(action.status).toBe(201);
    expect(action.body.data).toMatchObject({ confirm: true, enabled: true });
    const api = client(people.token, sys.apiUrl);
    const kb = await api.post('/kb/ingest', { title: 'Orders', text: 'An order can be cancelled until it ships. Refunds follow within 5 days.', chatbotId: botId });
    expect(kb.status).toBe(202);
    await waitFor(async () => (await api.get('/kb')).body.data.find((d: { id: string }) => d.id === kb.body.data.id)?.status, (st) => st === 'ready', 60000, 250);
    await sys.admin(['widget', 'set', '--bot', botId, '--origins', site.origin]);
  }, 240000);

  afterAll(async () => {
    await sys?.stop();
    await site?.close();
    await shop?.close();
    await model?.close();
  });

  // ---------------------------------------------------------------------------------------------

  const launcher = (page: Page, name = en.launcher_open) => page.getByRole('button', { name, exact: true });
  const panel = (page: Page) => page.getByRole('dialog', { name: BOT_NAME });
  const card = (scope: Locator) => scope.getByRole('group', { name: new RegExp(`^${en.action_confirm_title}`) });
  const statusLine = (scope: Locator) => scope.getByRole('status');
  /** An answer of the bot (its bubble also holds "Assistant:" for screen readers). */
  const reply = (scope: Locator, pieces: string[]) => scope.locator('.msg.assistant').filter({ hasText: pieces.join('') });

  async function openWidget(page: Page): Promise<Locator> {
    await page.goto(site.pageUrl({ bot: botId }));
    await launcher(page).click();
    const dialog = panel(page);
    await dialog.waitFor({ state: 'visible' });
    return dialog;
  }

  /** Records every POST …/chat of the page with its whole SSE answer. */
  function recordChats(page: Page): ChatExchange[] {
    const exchanges: ChatExchange[] = [];
    page.on('response', (res: PwResponse) => {
      const req = res.request();
      if (req.method() !== 'POST' || !/\/widget\/v1\/bots\/[^/]+\/chat$/.test(new URL(res.url()).pathname)) return;
      const exchange: ChatExchange = { body: req.postDataJSON(), status: res.status(), frames: [] };
      exchanges.push(exchange);
      void res.text().then(
        (text) => {
          exchange.frames = text
            .split('\n\n')
            .filter((block) => block.startsWith('data: '))
            .map((block) => JSON.parse(block.slice(6)));
        },
        () => undefined,
      );
    });
    return exchanges;
  }

  /** The element focused inside the widget's shadow root: its role, accessible name and class. */
  const focused = (page: Page) =>
    page.evaluate(`(() => {
      let el = document.activeElement;
      while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
      if (!el) return null;
      return { role: el.getAttribute('role'), cls: el.getAttribute('class'), text: (el.textContent || '').trim() };
    })()`) as Promise<{ role: string | null; cls: string | null; text: string } | null>;

  async function ask(dialog: Locator, question: string): Promise<void> {
    await dialog.getByRole('textbox', { name: en.message_label }).filter({ visible: true }).first().fill(question);
    await dialog.getByRole('button', { name: en.send, exact: true }).click();
  }

  const actionFrames = (exchange: ChatExchange) => exchange.frames.filter((f) => f.action).map((f) => f.action);

  /** Every frame of every stream keeps the spec's shape: choices[0].delta.content is a string. */
  function expectSpecFrames(exchanges: ChatExchange[]): void {
    for (const e of exchanges) {
      expect(e.frames.length).toBeGreaterThan(0);
      for (const f of e.frames) expect(typeof f.choices?.[0]?.delta?.content).toBe('string');
      for (const f of e.frames.filter((x) => x.action)) expect(f.choices[0].delta.content).toBe('');
    }
  }

  const noPageFaults = () => expect({ csp: b.cspViolations(), reports: site.cspReports.splice(0) }).toEqual({ csp: [], reports: [] });

  // ---------------------------------------------------------------------------------------------

  it('the answer waits on a confirm card; Escape decides nothing; Cancel: the shop gets nothing and the model hears it was cancelled', async () => {
    const page = b.page();
    const chats = recordChats(page);
    const dialog = await openWidget(page);
    await ask(dialog, QUESTION);

    const confirmCard = card(dialog);
    await confirmCard.waitFor({ state: 'visible', timeout: 30000 });
    await waitFor(async () => chats[0]?.frames.length ?? 0, (n) => n > 0, 10000, 50);
    // The stream: the awaiting frame as the last before the final stop frame.
    const first = chats[0]!;
    expect(first.status).toBe(200);
    expect(first.frames.at(-1).choices[0].finish_reason).toBe('stop');
    const waiting = first.frames.at(-2).action;
    expect(waiting).toMatchObject({ name: 'cancel_order', state: 'awaiting_confirmation', input: { order_id: 'A-1001' } });
    expect(typeof waiting.label).toBe('string');
    // The card: its label, the input as key/value text, Confirm and Cancel; focus moved to it.
    const text = await confirmCard.innerText();
    expect(await confirmCard.textContent()).toContain(en.action_confirm_title);
    expect(text).toContain(waiting.label);
    expect(text).toMatch(/order_id\s*A-1001/);
    await expect(confirmCard.getByRole('button', { name: en.action_confirm, exact: true }).isVisible()).resolves.toBe(true);
    await expect(confirmCard.getByRole('button', { name: en.cancel, exact: true }).isVisible()).resolves.toBe(true);
    await waitFor(() => focused(page), (f) => f?.role === 'group' && f.cls === 'confirm', 5000, 50);
    await page.keyboard.press('Tab');
    expect(await focused(page)).toEqual(expect.objectContaining({ text: en.action_confirm }));
    expect(shop.requests).toEqual([]);

    await page.evaluate(AXE_SOURCE);
    await expectNoSeriousAxeViolations(page, 'the widget with a confirm card');
    await widgetScreenshot(page, 'widget-action-confirm');

    // Escape closes the panel as everywhere: the call still waits, nothing ran, nothing was sent.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await launcher(page).click();
    await dialog.waitFor({ state: 'visible' });
    await confirmCard.waitFor({ state: 'visible' });
    expect(chats).toHaveLength(1);
    expect(shop.requests).toEqual([]);

    // Cancel, from the keyboard.
    const requestsBefore = model.requests.length;
    await confirmCard.getByRole('button', { name: en.cancel, exact: true }).focus();
    await page.keyboard.press('Enter');
    await dialog.getByText(en.action_cancelled, { exact: true }).waitFor({ timeout: 15000 });
    await reply(dialog, REPLY_KEPT).waitFor({ timeout: 15000 });
    await waitFor(async () => chats[1]?.frames.length ?? 0, (n) => n > 0, 10000, 50);
    expect(await confirmCard.count()).toBe(0);
    expect(chats[1]!.body).toEqual(expect.objectContaining({ message: en.cancel, sessionId: first.body.sessionId, action_confirmation: { call_id: waiting.call_id, confirm: false } }));
    expect(first.body.sessionId).toEqual(expect.any(String));
    expect(actionFrames(chats[1]!).map((a) => [a.call_id, a.state])).toEqual([[waiting.call_id, 'cancelled']]);
    // Nothing reached the shop; the model was told the visitor cancelled its call.
    expect(shop.requests).toEqual([]);
    const followUp = model.requests.slice(requestsBefore).find((r) => toolResultsOf(r.body).length > 0);
    expect(followUp).toBeDefined();
    expect(toolCallsOf(followUp!.body).at(-1)).toEqual(expect.objectContaining({ id: waiting.call_id, name: 'cancel_order', input: { order_id: 'A-1001' } }));
    const result = toolResultsOf(followUp!.body).at(-1)!;
    expect(result.id).toBe(waiting.call_id);
    expect(result.content).toMatch(/cancel/i);
    expect(result.content).not.toMatch(/"ok"\s*:\s*true/);
    expectSpecFrames(chats);
    noPageFaults();
  });

  it('Confirm: the status line shows while the shop works, the shop gets exactly one call, and the reply shows', async () => {
    const page = b.page();
    const chats = recordChats(page);
    const dialog = await openWidget(page);
    await ask(dialog, QUESTION);
    const confirmCard = card(dialog);
    await confirmCard.waitFor({ state: 'visible', timeout: 30000 });
    await waitFor(async () => chats[0]?.frames.length ?? 0, (n) => n > 0, 10000, 50);
    const waiting = chats[0]!.frames.at(-2).action;
    const shopBefore = shop.requests.length;

    // A double click: one decision goes out, and the buttons say they are disabled at once.
    const disabled = await confirmCard.getByRole('button', { name: en.action_confirm, exact: true }).evaluate(async (el: any) => {
      el.click();
      el.click();
      await new Promise((r) => setTimeout(r, 0));
      return el.getAttribute('aria-disabled');
    });
    expect(disabled).toBe('true');

    // While the shop works (1.5 s) the status line says what runs.
    const status = statusLine(dialog);
    await waitFor(() => status.innerText(), (t) => t === STATUS_TEXT, 10000, 25);
    await expect(status.isVisible()).resolves.toBe(true);
    await expect(status.getAttribute('aria-live')).resolves.toBe('polite');
    expect(shop.requests.length - shopBefore).toBeLessThanOrEqual(1);
    await widgetScreenshot(page, 'widget-action-running');

    await reply(dialog, REPLY_DONE).waitFor({ timeout: 20000 });
    await dialog.getByText(en.action_confirmed, { exact: true }).waitFor();
    await waitFor(() => status.innerText(), (t) => t === '', 5000, 50);
    await waitFor(async () => chats[1]?.frames.length ?? 0, (n) => n > 0, 10000, 50);
    expect(chats).toHaveLength(2);
    expect(chats[1]!.body).toEqual(expect.objectContaining({ message: en.action_confirm, action_confirmation: { call_id: waiting.call_id, confirm: true } }));
    expect(actionFrames(chats[1]!).map((a) => [a.call_id, a.state, a.label])).toEqual([
      [waiting.call_id, 'running', STATUS_TEXT],
      [waiting.call_id, 'done', expect.any(String)],
    ]);
    // Exactly one call reached the shop: the one confirmed, with the action's header.
    const calls = shop.requests.slice(shopBefore);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'POST', path: '/orders/A-1001/cancel' });
    expect(calls[0]!.headers['x-shop-key']).toBe(SHOP_KEY);
    expectSpecFrames(chats);
    noPageFaults();
  });

  it('a card whose call no longer waits (decided in another tab) says so, and nothing more runs', async () => {
    const page = b.page();
    const dialog = await openWidget(page);
    await ask(dialog, QUESTION);
    await card(dialog).waitFor({ state: 'visible', timeout: 30000 });
    // The same visitor in a second tab: the same session and card, from the widget's storage.
    const other = await b.context().newPage();
    const otherChats = recordChats(other);
    const otherDialog = await openWidget(other);
    await card(otherDialog).waitFor({ state: 'visible' });
    const shopBefore = shop.requests.length;

    await card(dialog).getByRole('button', { name: en.action_confirm, exact: true }).click();
    await reply(dialog, REPLY_DONE).waitFor({ timeout: 20000 });
    expect(shop.requests.length - shopBefore).toBe(1);

    await card(otherDialog).getByRole('button', { name: en.cancel, exact: true }).click();
    await otherDialog.getByText(en.action_gone, { exact: true }).waitFor({ timeout: 10000 });
    expect(otherChats.map((c) => c.status)).toEqual([409]);
    expect(await card(otherDialog).count()).toBe(0);
    expect(shop.requests.length - shopBefore).toBe(1);
    noPageFaults();
  });
});
