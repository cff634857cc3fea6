import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { expectNoSeriousAxeViolations, SCREENSHOT_DIR, useBrowser } from './support/browser';
import { ConsolePeople, signInPage, workspaceWithPeople } from './support/console-people';
import { e2eState } from './support/state';

/**
 * The bot page's "Actions" section (issue 34) in Debian's Chromium against the running system: an
 * owner adds an action through the form builder (two parameters, one required, and a secret
 * header) and sees it listed; the secret is in no HTML of the page, after saving nor in "Edit"
 * (the stored header shows an empty field that keeps the value); "Test" of an endpoint on a
 * private address shows the outbound policy's refusal; "Edit as JSON" shows the schema the
 * builder made, refuses invalid JSON and a schema the builder cannot show; a built-in is switched
 * on and saved. axe clean, keyboard focus on opening and closing, 1280 and 768 pixels;
 * docs/screenshots/console-bot-actions.png and console-bot-actions-form.png. A member reads the
 * section without any control.
 */
const s = e2eState();
const SECRET = 'sk-shop-console-7f3a9c2b41d8e605';
/** A private address: the installation's default outbound policy refuses it (port 443 is allowed). */
const BLOCKED_URL = 'https://10.20.30.40/orders/{order_id}';

let people: ConsolePeople;
let botId: string;
const actionsPath = () => `/api/workspaces/${people.ws.id}/bots/${botId}/actions`;
const settingsPath = () => `/api/workspaces/${people.ws.id}/bots/${botId}/action-settings`;

beforeAll(async () => {
  people = await workspaceWithPeople('growth', 'Acme Outfitters');
  const created = await people.owner.post(`/api/workspaces/${people.ws.id}/bots`, { name: 'Order desk', language: 'en' });
  expect(created.status).toBe(201);
  botId = created.body.data.id;
}, 60000);

async function openBot(page: Page, email: string): Promise<Locator> {
  await signInPage(page, email);
  await page.goto(`${s.consoleUrl}/w/${people.ws.id}/bots/${botId}`);
  const section = page.getByRole('region', { name: 'Actions', exact: true });
  await section.getByText(/^Actions need a model: a bot on the offline default \(extractive answers\) never calls them\./).waitFor();
  return section;
}

/** docs/screenshots/console-<name>.png: the page 1280 pixels wide, from the top of the section to its bottom. */
async function sectionScreenshot(page: Page, section: Locator, name: string): Promise<void> {
  await page.waitForTimeout(100);
  const box = (await section.boundingBox())!;
  const scrollY = (await page.evaluate('window.scrollY')) as number;
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({
    path: path.join(process.env['SCREENSHOT_DIR'] || SCREENSHOT_DIR, `console-${name}.png`),
    fullPage: true,
    clip: { x: 0, y: Math.max(0, box.y + scrollY - 16), width: 1280, height: Math.ceil(box.height + 32) },
    animations: 'disabled',
    caret: 'hide',
  });
}

/** Clicks a checkbox's visible label, as a person does (react-aria keeps the input visually hidden under its drawn box). */
async function toggle(scope: Locator, name: string): Promise<void> {
  const box = scope.getByRole('checkbox', { name, exact: true });
  const before = await box.isChecked();
  await scope.locator('label').filter({ has: scope.page().getByRole('checkbox', { name, exact: true }) }).click();
  expect([name, await box.isChecked()]).toEqual([name, !before]);
}

const activeText = (page: Page) => page.evaluate('document.activeElement ? document.activeElement.textContent : null');
const noSidewaysScroll = (page: Page) => page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth');

describe('the bot page’s Actions section in Chromium (issue 34)', () => {
  const br = useBrowser();

  it('an owner adds an action with two parameters and a secret header, edits it, tests it (blocked), reads it as JSON, and saves the built-ins', async () => {
    const page = br.page();
    const section = await openBot(page, people.emails.owner);
    await section.getByText('No actions yet.').waitFor();

    // The form opens with focus on its heading.
    await section.getByRole('button', { name: 'Add action' }).click();
    const form = section.getByRole('form', { name: 'Add action' });
    await form.waitFor();
    expect(await activeText(page)).toBe('Add action');

    await form.getByLabel('Name', { exact: true }).fill('order_status');
    await form.getByLabel('Description', { exact: true }).fill('Looks up where an order is. Use it when the visitor gives an order number.');
    await form.getByLabel('URL', { exact: true }).fill(BLOCKED_URL);

    // "Needs the visitor's confirmation" follows the method until it is set by hand.
    const confirm = form.getByRole('checkbox', { name: "Needs the visitor's confirmation" });
    expect(await confirm.isChecked()).toBe(false);
    await form.getByLabel('Method').selectOption('POST');
    expect(await confirm.isChecked()).toBe(true);
    await form.getByLabel('Method').selectOption('GET');
    expect(await confirm.isChecked()).toBe(false);

    // Two parameters through the builder, the first one required.
    await form.getByRole('button', { name: 'Add parameter' }).click();
    await form.getByRole('button', { name: 'Add parameter' }).click();
    const first = form.getByRole('group', { name: 'Parameter 1' });
    await first.getByLabel('Parameter name').fill('order_id');
    await first.getByLabel('Parameter description').fill('The order number, e.g. A-1001');
    await toggle(first, 'Required');
    expect(await first.getByRole('checkbox', { name: 'Required' }).isChecked()).toBe(true);
    const second = form.getByRole('group', { name: 'Parameter 2' });
    await second.getByLabel('Parameter name').fill('include_items');
    await second.getByLabel('Type').selectOption('boolean');

    // A secret header.
    await form.getByRole('button', { name: 'Add header' }).click();
    const header = form.getByRole('group', { name: 'Header 1' });
    await header.getByLabel('Header name').fill('Authorization');
    await header.getByLabel('Header value').fill(`Bearer ${SECRET}`);
    expect(await header.getByLabel('Header value').getAttribute('type')).toBe('password');
    expect(await header.getByLabel('Header value').getAttribute('autocomplete')).toBe('off');

    // "Visitor ID parameter" offers the string parameters, only for verified visitors.
    const visitorId = form.getByLabel('Visitor ID parameter');
    expect(await visitorId.isDisabled()).toBe(true);
    await toggle(form, 'Verified visitors only');
    expect(await visitorId.isDisabled()).toBe(false);
    expect(await visitorId.locator('option').allTextContents()).toEqual(['None', 'order_id']);
    await toggle(form, 'Verified visitors only');

    await expectNoSeriousAxeViolations(page, 'the Actions form');
    await sectionScreenshot(page, section, 'bot-actions-form');

    await form.getByRole('button', { name: 'Save action' }).click();
    await section.getByText('Action “order_status” saved.').waitFor();
    await form.waitFor({ state: 'detached' });
    // Focus goes back to the button that opened the form.
    expect(await activeText(page)).toBe('Add action');

    const table = section.getByRole('region', { name: 'Actions table' });
    const row = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'order_status' }) });
    expect(await row.getByRole('cell').allTextContents()).toEqual(expect.arrayContaining(['GET', BLOCKED_URL]));
    expect((await row.getByRole('cell').allTextContents()).slice(2, 5)).toEqual(['No', 'No', 'Yes']);
    expect(await page.content()).not.toContain(SECRET);

    const stored = (await people.owner.get(actionsPath())).body.data;
    expect(stored).toEqual([
      expect.objectContaining({
        name: 'order_status',
        method: 'GET',
        url: BLOCKED_URL,
        confirm: false,
        verified_only: false,
        user_id_param: null,
        enabled: true,
        headers: [{ name: 'Authorization', has_value: true }],
        parameters: {
          type: 'object',
          properties: { order_id: { type: 'string', description: 'The order number, e.g. A-1001' }, include_items: { type: 'boolean' } },
          required: ['order_id'],
        },
      }),
    ]);

    await expectNoSeriousAxeViolations(page, 'the Actions section with one action');
    await sectionScreenshot(page, section, 'bot-actions');

    // Edit: the stored header shows an empty value that keeps it; the secret is nowhere in the page.
    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = section.getByRole('form', { name: 'Edit action “order_status”' });
    await edit.waitFor();
    expect(await activeText(page)).toBe('Edit action “order_status”');
    const storedValue = edit.getByRole('group', { name: 'Header 1' }).getByLabel('Header value');
    expect(await storedValue.inputValue()).toBe('');
    expect(await storedValue.getAttribute('placeholder')).toBe('Stored — leave empty to keep');
    expect(await edit.getByRole('group', { name: 'Parameter 1' }).getByLabel('Parameter name').inputValue()).toBe('order_id');
    expect(await page.content()).not.toContain(SECRET);

    // "Edit as JSON": the schema the builder made.
    await toggle(edit, 'Edit as JSON');
    const json = edit.getByLabel('Parameters (JSON Schema)');
    const schema = JSON.parse(await json.inputValue());
    expect(Object.keys(schema.properties)).toEqual(['order_id', 'include_items']);
    expect(schema.required).toEqual(['order_id']);
    // Invalid JSON: an inline error, and nothing is saved.
    await json.fill('{"type": "object", "properties": {');
    await edit.getByText(/^Not valid JSON/).waitFor();
    await edit.getByRole('button', { name: 'Save action' }).click();
    expect(await edit.isVisible()).toBe(true);
    // A schema the builder cannot show keeps the JSON editor.
    await json.fill(JSON.stringify({ ...schema, properties: { ...schema.properties, size: { type: 'string', enum: ['S', 'M', 'L'] } } }));
    await edit.locator('label').filter({ has: page.getByRole('checkbox', { name: 'Edit as JSON' }) }).click();
    await edit.getByText(/The builder cannot show this schema/).waitFor();
    expect(await edit.getByRole('checkbox', { name: 'Edit as JSON' }).isChecked()).toBe(true);
    await json.fill(JSON.stringify(schema));
    await toggle(edit, 'Edit as JSON');
    await edit.getByRole('group', { name: 'Parameter 2' }).waitFor();

    // Saved with the header left empty: the stored value is kept.
    await edit.getByLabel('Description', { exact: true }).fill('Where an order is, from its number.');
    await edit.getByRole('button', { name: 'Save action' }).click();
    await edit.waitFor({ state: 'detached' });
    expect(await activeText(page)).toBe('Edit');
    const updated = (await people.owner.get(`${actionsPath()}/${stored[0].id}`)).body.data;
    expect(updated).toMatchObject({ description: 'Where an order is, from its number.', headers: [{ name: 'Authorization', has_value: true }] });
    expect(await page.content()).not.toContain(SECRET);

    // Test: the sample input lists the parameters; the private address is refused by the outbound policy.
    await row.getByRole('button', { name: 'Test' }).click();
    const dialog = page.getByRole('dialog', { name: 'Test action' });
    const sample = dialog.getByLabel('Sample input');
    expect(JSON.parse(await sample.inputValue())).toEqual({ order_id: '', include_items: false });
    await sample.fill('{"order_id": "A-1001", "include_items": true}');
    await dialog.getByRole('button', { name: 'Run test' }).click();
    const outcome = dialog.getByRole('alert');
    await outcome.getByText(/^Blocked by the outbound policy/).waitFor({ timeout: 20000 });
    await outcome.getByText('Failed', { exact: true }).waitFor();
    await expectNoSeriousAxeViolations(page, 'the Test action dialog');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });

    // Built-ins and the limit.
    await toggle(section, 'Capture a lead');
    await section.getByLabel('Actions per turn').fill('5');
    await section.getByRole('button', { name: 'Save action settings' }).click();
    await section.getByText('Action settings saved.').waitFor();
    expect((await people.owner.get(settingsPath())).body.data).toEqual({ max_calls_per_turn: 5, builtins: { booking: false, lead: true, handoff: false } });

    await expectNoSeriousAxeViolations(page, 'the Actions section after saving');
    expect(await page.content()).not.toContain(SECRET);

    // 768 pixels: the table and the open form fit without sideways scrolling.
    await page.setViewportSize({ width: 768, height: 900 });
    await section.getByRole('button', { name: 'Add action' }).click();
    await section.getByRole('form', { name: 'Add action' }).getByRole('button', { name: 'Add parameter' }).click();
    await page.waitForTimeout(150);
    expect(await noSidewaysScroll(page)).toBe(true);
    await expectNoSeriousAxeViolations(page, 'the Actions section, 768 pixels wide');
    await section.getByRole('button', { name: 'Cancel' }).click();
    expect(await activeText(page)).toBe('Add action');
    expect(br.cspViolations()).toEqual([]);
  });

  it('a member reads the actions and the settings without any control', async () => {
    const page = br.page();
    const section = await openBot(page, people.emails.member);
    await section.getByRole('region', { name: 'Actions table' }).getByRole('rowheader', { name: 'order_status' }).waitFor();
    for (const name of ['Add action', 'Edit', 'Test', 'Delete', 'Save action settings']) expect(await section.getByRole('button', { name, exact: true }).count()).toBe(0);
    expect(await section.getByRole('checkbox', { name: 'Capture a lead' }).isChecked()).toBe(true);
    expect(await section.getByRole('checkbox', { name: 'Capture a lead' }).isDisabled()).toBe(true);
    expect(await section.getByLabel('Actions per turn').inputValue()).toBe('5');
    await expectNoSeriousAxeViolations(page, 'the Actions section as a member');
  });

  it('an owner deletes an action after confirming', async () => {
    const page = br.page();
    const section = await openBot(page, people.emails.owner);
    const row = section.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'order_status' }) });
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('alertdialog', { name: 'Delete “order_status”?' }).getByRole('button', { name: 'Delete' }).click();
    await section.getByText('No actions yet.').waitFor();
    expect((await people.owner.get(actionsPath())).body.data).toEqual([]);
  });
});
