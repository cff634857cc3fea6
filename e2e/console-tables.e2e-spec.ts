import type { Page } from 'playwright-core';
import { admin } from './support/admin';
import { expectNoSeriousAxeViolations, screenshot, useBrowser } from './support/browser';
import { signInPage, workspaceWithPeople, ConsolePeople } from './support/console-people';
import { uniqueName } from './support/fixtures';
import { e2eState } from './support/state';

/**
 * Issue 30: on the API tokens page at 1280 px the tokens table was wider than its card and its
 * "Revoke" buttons were out of view. Every table of the console fits at 1280 px, and at narrower
 * widths (768 px) a table that would not fit collapses into a stacked, labelled layout: no page
 * and no table scrolls sideways.
 */
const WIDTHS = [1280, 768] as const;
const PAGES = ['tokens', 'bots', 'members', 'audit', 'knowledge', 'webhooks', 'workspace', 'connections', 'conversations', 'leads', 'bookings', 'handoff', 'analytics', 'widget'];

interface Overflow {
  page: boolean;
  tables: { label: string | null; scroll: number; client: number; stacked: boolean }[];
}

function overflowOf(page: Page): Promise<Overflow> {
  return page.evaluate(`(() => ({
    page: document.documentElement.scrollWidth > document.documentElement.clientWidth,
    tables: Array.from(document.querySelectorAll('.table-wrap')).map((w) => ({
      label: w.getAttribute('aria-label'),
      scroll: w.scrollWidth,
      client: w.clientWidth,
      stacked: w.classList.contains('table-wrap--stacked'),
    })),
  }))()`) as Promise<Overflow>;
}

describe('console tables fit at 1280 px and collapse below (issue 30)', () => {
  const b = useBrowser();
  let p: ConsolePeople;

  beforeAll(async () => {
    p = await workspaceWithPeople('scale');
    // Rows with long content: tokens with every scope and a bot restriction, bots, documents, a webhook.
    const bot = await p.ws.api.post('/bots', { name: uniqueName('Support'), language: 'en' });
    expect(bot.status).toBe(201);
    for (let i = 0; i < 3; i++) {
      await admin(['token', 'create', '--workspace', p.ws.id, '--scopes', 'all', '--bots', bot.body.data.id, '--expires-in', '86400', '--name', `A rather long token name number ${i} for CRM sync`]);
    }
    expect((await p.ws.api.post('/kb/ingest', { title: 'Opening hours and holiday schedule of every store', text: 'We are open from nine to five.' })).status).toBe(202);
    const hook = await p.owner.post(`/api/workspaces/${p.ws.id}/webhooks`, { name: 'Bookings to the CRM of the sales team', url: `http://127.0.0.1:${e2eState().receiverPort}/a/rather/long/path/to/the/receiver`, events: ['booking.created', 'lead.created', 'conversation.handoff'] });
    expect([hook.status, hook.status === 201 ? '' : hook.text]).toEqual([201, '']);
  });

  for (const width of WIDTHS) {
    it(`at ${width} px: no page scrolls sideways and every table fits its card`, async () => {
      const page = b.page();
      await page.setViewportSize({ width, height: 900 });
      await signInPage(page, p.emails.owner);
      for (const name of PAGES) {
        await page.goto(`${page.url().split('/w/')[0]}/w/${p.ws.id}/${name}`);
        await page.locator('main').waitFor();
        // The page's data has arrived and rendered (its table, if any, refits within a frame).
        await page.waitForLoadState('networkidle');
        await page.waitForTimeout(100);
        const o = await overflowOf(page);
        expect({ name, width, page: o.page }).toEqual({ name, width, page: false });
        for (const t of o.tables) expect({ name, width, table: t.label, overflows: t.scroll > t.client + 1 }).toEqual({ name, width, table: t.label, overflows: false });
        if (width === 1280) for (const t of o.tables) expect({ name, table: t.label, stacked: t.stacked }).toEqual({ name, table: t.label, stacked: false });
      }

      await page.goto(`${page.url().split('/w/')[0]}/w/${p.ws.id}/tokens`);
      const revoke = page.getByRole('button', { name: /^Revoke/ }).first();
      await revoke.waitFor();
      const box = await revoke.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= width).toBe(true);
      if (width === 768) {
        // Stacked: each cell shows its column's name.
        const labels = await page.locator('.table-wrap--stacked td[data-label]').evaluateAll((cells) => cells.map((c) => c.getAttribute('data-label')));
        expect(labels).toEqual(expect.arrayContaining(['Scopes', 'Bots', 'Created', 'Status']));
        await expectNoSeriousAxeViolations(page, 'tokens, stacked at 768 px');
        await screenshot(page, 'tokens-narrow');
      }
    }, 180000);
  }
});
