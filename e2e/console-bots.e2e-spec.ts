import type { Page } from 'playwright-core';
import { expectNoSeriousAxeViolations, screenshot, useBrowser } from './support/browser';
import { ConsolePeople, signInPage, workspaceWithPeople } from './support/console-people';
import { uniqueName } from './support/fixtures';
import { e2eState } from './support/state';

/**
 * The console's Bots page and API (issue 19) against the running system: bots are created with
 * the rules of POST /v1/bots (402 when the plan's slots are used, 409 with suggested_name, 400 for
 * a bad body), by owners and admins only; name and reply language change (visible through
 * GET /v1/bots); another workspace's bot is 404; every change is in the audit log. Then the page
 * in Chromium: create, the 409 with "Use …", the 402, settings saved, the snippet, axe, screenshot.
 */
const s = e2eState();

describe('console: the Bots API (issue 19)', () => {
  let a: ConsolePeople;
  let b: ConsolePeople;
  const bots = (p: ConsolePeople, suffix = '') => `/api/workspaces/${p.ws.id}/bots${suffix}`;

  beforeAll(async () => {
    [a, b] = [await workspaceWithPeople('growth'), await workspaceWithPeople('growth')];
  });

  it('an admin creates bots as POST /v1/bots does: 201, then 409 with suggested_name, 400 for a bad body, 402 once the plan slots are used; a member may not (403)', async () => {
    const name = uniqueName('Support');
    const created = await a.admin.post(bots(a), { name, language: 'fr-ca' });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ id: expect.any(String), name, language: 'fr-CA', created_at: expect.any(String) });
    // The same bot through the REST API.
    expect((await a.ws.api.get('/bots')).body.data).toEqual([expect.objectContaining({ id: created.body.data.id, name, language: 'fr-CA', slot_kind: 'plan' })]);

    const taken = await a.admin.post(bots(a), { name });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual(expect.objectContaining({ code: 'bot_name_taken', suggested_name: `${name} 2` }));

    const bad = await a.admin.post(bots(a), { name: 'x'.repeat(31), colour: 'red' });
    expect(bad.status).toBe(400);

    expect((await a.member.post(bots(a), { name: uniqueName('Member bot') })).status).toBe(403);
    expect((await a.owner.post(bots(a), { name: uniqueName('Second') })).status).toBe(201);
    expect((await a.admin.post(bots(a), { name: uniqueName('Third') })).status).toBe(201);
    const full = await a.admin.post(bots(a), { name: uniqueName('Fourth') });
    expect(full.status).toBe(402);
    expect(full.body).toEqual(expect.objectContaining({ code: 'plan_capacity_exhausted', message: expect.stringContaining('3 bot') }));

    // Writes need the CSRF token.
    expect((await a.admin.request('POST', bots(a), { name: uniqueName('No csrf') }, { csrf: null })).status).toBe(403);

    const list = await a.member.get(bots(a));
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(3);
    expect(list.body.data[0]).toEqual({ id: created.body.data.id, name, language: 'fr-CA', slot_kind: 'plan', created_at: created.body.data.created_at });
  });

  it('an admin renames a bot and changes its reply language (GET /v1/bots shows it); a taken name is 409; another workspace’s bot is 404; a member gets 403; the audit log has each change', async () => {
    const one = (await b.admin.post(bots(b), { name: uniqueName('One') })).body.data;
    const two = (await b.admin.post(bots(b), { name: uniqueName('Two') })).body.data;
    const renamed = uniqueName('Renamed');
    const saved = await b.admin.patch(bots(b, `/${one.id}`), { name: renamed, language: 'de' });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toEqual(expect.objectContaining({ id: one.id, name: renamed, language: 'de' }));
    expect((await b.ws.api.get('/bots')).body.data.find((x: { id: string }) => x.id === one.id)).toEqual(expect.objectContaining({ name: renamed, language: 'de' }));
    // Only the language: the name stays.
    expect((await b.owner.patch(bots(b, `/${one.id}`), { language: 'ja-jp' })).body.data).toEqual(expect.objectContaining({ name: renamed, language: 'ja-JP' }));

    const clash = await b.admin.patch(bots(b, `/${two.id}`), { name: renamed });
    expect(clash.status).toBe(409);
    expect(clash.body.suggested_name).toBe(`${renamed} 2`);
    expect((await b.admin.patch(bots(b, `/${one.id}`), { language: 'not a language!' })).status).toBe(400);
    expect((await b.admin.patch(bots(b, `/${one.id}`), { name: '   ' })).status).toBe(400);
    expect((await b.member.patch(bots(b, `/${one.id}`), { language: 'fr' })).status).toBe(403);
    // A bot of workspace a, through workspace b's route: not found.
    const foreign = (await a.member.get(bots(a))).body.data[0];
    expect((await b.admin.patch(bots(b, `/${foreign.id}`), { language: 'fr' })).status).toBe(404);
    expect((await a.member.get(bots(a))).body.data[0].language).toBe(foreign.language);

    const audit = (await b.owner.get(`/api/workspaces/${b.ws.id}/audit`)).body.data as { action: string; target_id: string; details: Record<string, unknown> }[];
    expect(audit.filter((e) => e.action === 'bot.created').map((e) => e.target_id).sort()).toEqual([one.id, two.id].sort());
    expect(audit.filter((e) => e.action === 'bot.updated' && e.target_id === one.id).map((e) => e.details)).toEqual(
      expect.arrayContaining([{ name: renamed, language: 'de' }, { language: 'ja-JP' }]),
    );
  });
});

describe('console: the Bots page in a browser (issue 19)', () => {
  const br = useBrowser();
  let p: ConsolePeople;

  beforeAll(async () => {
    p = await workspaceWithPeople('growth', 'Acme Bots');
    expect((await p.ws.api.post('/bots', { name: 'Front desk', language: 'en' })).status).toBe(201);
  });

  const createBot = async (page: Page, name: string, language = '') => {
    await page.getByRole('textbox', { name: /^Name/ }).fill(name);
    await page.getByRole('textbox', { name: /^Language/ }).fill(language);
    await page.getByRole('button', { name: 'Create bot' }).click();
  };

  it('an admin creates a bot (then sees its settings and snippet), saves its reply language and greeting; a taken name shows 409 with “Use …”; a full plan shows 402', async () => {
    const page = br.page();
    await signInPage(page, p.emails.admin);
    await page.getByRole('link', { name: 'Bots', exact: true }).click();
    await page.waitForURL(`${s.consoleUrl}/w/${p.ws.id}/bots`);
    await page.getByRole('heading', { name: 'Bots', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Front desk' }).waitFor();

    await createBot(page, 'Returns desk', 'fr');
    await page.getByRole('heading', { name: 'Returns desk', level: 1 }).waitFor();
    await page.getByText('Bot created.').waitFor();
    const bot = ((await p.admin.get(`/api/workspaces/${p.ws.id}/bots`)).body.data as { id: string; name: string }[]).find((x) => x.name === 'Returns desk')!;
    expect(bot).toEqual(expect.objectContaining({ language: 'fr' }));
    expect(page.url()).toContain(`/w/${p.ws.id}/bots/${bot.id}`);

    // Settings: the default reply language.
    const language = page.getByRole('textbox', { name: /^Default reply language/ });
    expect(await language.inputValue()).toBe('fr');
    await language.fill('de');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    expect((await p.ws.api.get('/bots')).body.data.find((x: { id: string }) => x.id === bot.id)).toEqual(expect.objectContaining({ language: 'de' }));

    // The widget pieces: the snippet to copy, the greeting.
    const widget = (await p.admin.get(`/api/workspaces/${p.ws.id}/bots/${bot.id}/widget`)).body.data;
    expect(await page.locator('#install-snippet').innerText()).toBe(widget.install.snippet);
    await page.getByRole('button', { name: 'Copy snippet' }).click();
    await page.getByRole('status').filter({ hasText: /Copied|selected/ }).first().waitFor();
    await page.getByRole('textbox', { name: /^Greeting/ }).fill('Hello from the returns desk <i>not italic</i>');
    await page.getByRole('button', { name: 'Save appearance' }).click();
    await page.getByText('Appearance saved.').waitFor();
    expect((await p.admin.get(`/api/workspaces/${p.ws.id}/bots/${bot.id}/widget`)).body.data.theme.greeting).toBe('Hello from the returns desk <i>not italic</i>');
    await expectNoSeriousAxeViolations(page, "a bot's settings");

    // 409: the API's message and its suggestion, taken with "Use …".
    await page.getByRole('link', { name: 'All bots' }).click();
    await page.getByRole('heading', { name: 'Bots', level: 1 }).waitFor();
    await createBot(page, 'Returns desk');
    const alert = page.getByRole('alert').filter({ hasText: 'The bot was not created.' });
    await alert.getByText('A bot named "Returns desk" already exists').waitFor();
    await page.getByRole('button', { name: 'Use “Returns desk 2”' }).click();
    expect(await page.getByRole('textbox', { name: /^Name/ }).inputValue()).toBe('Returns desk 2');
    await page.getByRole('button', { name: 'Create bot' }).click();
    await page.getByRole('heading', { name: 'Returns desk 2', level: 1 }).waitFor();

    // 402: the growth plan's three slots are used.
    await page.getByRole('link', { name: 'All bots' }).click();
    await createBot(page, 'Sales desk');
    await page.getByRole('alert').filter({ hasText: 'The bot was not created.' }).getByText(/allows 3 bot/).waitFor();
    expect(((await p.admin.get(`/api/workspaces/${p.ws.id}/bots`)).body.data as { name: string }[]).map((x) => x.name)).toEqual(['Front desk', 'Returns desk', 'Returns desk 2']);
    await expectNoSeriousAxeViolations(page, 'the Bots page with an error');

    await page.getByRole('textbox', { name: /^Name/ }).fill('');
    await page.reload();
    await page.getByRole('link', { name: 'Returns desk 2' }).waitFor();
    await page.waitForLoadState('networkidle');
    await expectNoSeriousAxeViolations(page, 'the Bots page');
    await screenshot(page, 'bots');
    expect(br.cspViolations()).toEqual([]);
  });

  it('a member sees the bots and a bot’s settings, without Create bot or Save settings', async () => {
    const page = br.page();
    await signInPage(page, p.emails.member);
    await page.goto(`${s.consoleUrl}/w/${p.ws.id}/bots`);
    await page.getByRole('link', { name: 'Front desk' }).click();
    await page.getByRole('heading', { name: 'Front desk', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Copy snippet' }).waitFor();
    for (const name of ['Create bot', 'Save settings', 'Save origins']) expect([name, await page.getByRole('button', { name }).count()]).toEqual([name, 0]);
    await expectNoSeriousAxeViolations(page, "a bot's settings (member)");
  });

  it('in an enterprise workspace, "Create bot" asks for the tier: a tier without a free slot shows 403 with the free slots per tier', async () => {
    const e = await workspaceWithPeople('enterprise', undefined, ['--enterprise-api', '--tier-slots', 'starter=1,growth=0,scale=2']);
    const page = br.page();
    await signInPage(page, e.emails.owner);
    await page.goto(`${s.consoleUrl}/w/${e.ws.id}/bots`);
    await page.getByText('No bots yet.').waitFor();
    await page.getByLabel('Enterprise tier').selectOption({ label: 'Growth' });
    await createBot(page, 'Tiered desk');
    await page.getByRole('alert').filter({ hasText: 'The bot was not created.' }).getByText('No free slot in the growth tier').waitFor();
    await page.getByText('Free slots per tier: Starter: 1, Growth: 0, Scale: 2.').waitFor();
    await page.getByLabel('Enterprise tier').selectOption({ label: 'Starter' });
    await page.getByRole('button', { name: 'Create bot' }).click();
    await page.getByRole('heading', { name: 'Tiered desk', level: 1 }).waitFor();
    expect((await e.ws.api.get('/bots')).body.data).toEqual([expect.objectContaining({ name: 'Tiered desk' })]);
    const audit = (await e.owner.get(`/api/workspaces/${e.ws.id}/audit`)).body.data as { action: string; details: Record<string, unknown> }[];
    expect(audit.find((x) => x.action === 'bot.created')?.details).toEqual({ name: 'Tiered desk', language: 'en', enterprise_plan_tier: 'starter' });
  });
});
