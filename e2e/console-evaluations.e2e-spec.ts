import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import type { Page } from 'playwright-core';
import { admin } from './support/admin';
import { waitFor } from './support/apps';
import { expectNoSeriousAxeViolations, screenshot, useBrowser } from './support/browser';
import { ConsolePeople, signInPage, workspaceWithPeople } from './support/console-people';
import { postSse } from './support/sse';
import { e2eState } from './support/state';

/**
 * The Evaluations page (issue 33) in Debian's Chromium against the running system (the
 * evaluations service included): an owner imports a test set (CSV), sets a gate, runs it and sees
 * the progress, the pass rate and a case's reply with the passages it was given; the run under the
 * gate shows the console's banner; deleting the document a case depends on starts an automatic
 * run that shows the case as newly failing; a visitor's question from a transcript is added to the
 * set; a member reads without the controls. axe clean, keyboard usable, 1280 pixels and narrow;
 * docs/screenshots/console-evaluations.png for the README's "Evaluating a bot".
 */
const s = e2eState();
const TITLE = 'Aurora lamp guide';
const FACT_TEXT = 'The Aurora lamp warranty lasts five years from the day of delivery. Returns are free within 30 days. The lamp has three brightness levels.';
const WARRANTY = 'How long is the Aurora lamp warranty?';
const BOATS = 'Do you sell sailing boats?';
const PHONE = 'Is there a 24/7 phone line?';
const CSV = ['question,expect,facts,language,note', `${WARRANTY},facts,five years,,`, `${BOATS},unanswered,,,`, `${PHONE},facts,24/7 phone line,,`].join('\n');
const VISITOR_QUESTION = 'Do you ship the lamp to Norway?';

let people: ConsolePeople;
let botId: string;
let documentId: string;
let sessionId: string;

beforeAll(async () => {
  people = await workspaceWithPeople('scale', 'Acme Lamps');
  botId = (await people.ws.api.post('/bots', { name: 'Lamp helper', language: 'en' })).body.data.id;
  const kb = await people.ws.api.post('/kb/ingest', { title: TITLE, text: FACT_TEXT, chatbotId: botId });
  expect(kb.status).toBe(202);
  documentId = kb.body.data.id;
  await waitFor(async () => (await people.ws.api.get('/kb')).body.data.find((d: { id: string }) => d.id === documentId)?.status, (st) => st === 'ready', 30000);
  sessionId = `eval-${randomUUID()}`;
  expect((await postSse('/chat', { message: VISITOR_QUESTION, sessionId, chatbotId: botId }, people.ws.token)).status).toBe(200);
}, 120000);

const evaluationsUrl = () => `${s.consoleUrl}/w/${people.ws.id}/evaluations?bot=${botId}`;

async function openEvaluations(page: Page, email: string): Promise<void> {
  await signInPage(page, email);
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Evaluations' }).click();
  await page.getByRole('heading', { level: 1, name: 'Evaluations' }).waitFor();
  await page.getByRole('heading', { name: 'Test set' }).waitFor();
}

const resultOf = (page: Page, question: string) => page.getByRole('list', { name: 'Results' }).getByRole('listitem').filter({ has: page.getByRole('heading', { name: question, exact: true }) });

describe('Evaluations in Chromium (issue 33)', () => {
  const br = useBrowser();

  it('an owner imports a CSV test set, sets a gate, runs it, and reads the pass rate and a case’s reply with its passages; the banner shows the run under the gate', async () => {
    const page = br.page();
    await openEvaluations(page, people.emails.owner);

    // Import with the keyboard: the dialog opens, the file is chosen, "Replace" is picked.
    const importButton = page.getByRole('button', { name: 'Import', exact: true });
    await importButton.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Import a test set' });
    await dialog.getByLabel('File').setInputFiles({ name: 'lamp-tests.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
    expect(await dialog.getByLabel('Format').inputValue()).toBe('csv');
    await dialog.getByRole('button', { name: 'Import cases' }).click();
    await page.getByRole('status').getByText('Imported 3 cases; the test set has 3.').waitFor();
    const table = page.getByRole('region', { name: 'Test set table' });
    for (const q of [WARRANTY, BOATS, PHONE]) await table.getByRole('rowheader', { name: q }).waitFor();

    // The gate: 90 %; automatic runs stay on.
    await page.getByLabel('Gate (pass rate, %)').fill('90');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();

    await page.getByRole('button', { name: 'Run now' }).click();
    // Progress while it goes (the first poll may already find it done on a fast machine).
    await page.getByText(/Answered \d+ of 3|Run complete/).first().waitFor({ timeout: 15000 });
    await page.getByRole('status').getByText(/^Run complete: 66\.7% passed \(2 of 3\)\.$/).waitFor({ timeout: 90000 });
    await page.getByText('Pass rate', { exact: true }).first().waitFor();

    // The warranty case passed with the document's passage; the phone case failed.
    const warranty = resultOf(page, WARRANTY);
    await warranty.getByText('Rules: Pass').waitFor();
    await resultOf(page, PHONE).getByText('Rules: Fail').waitFor();
    const summary = warranty.getByText('Reply and passages', { exact: true });
    await summary.focus();
    await page.keyboard.press('Enter');
    const passages = warranty.getByRole('list', { name: 'Passages the bot was given' });
    await passages.getByText(TITLE, { exact: true }).waitFor();
    await passages.getByText('five years', { exact: false }).first().waitFor();

    // Under the gate: the console's banner, on this page and the others.
    const banner = page.getByRole('alert').filter({ hasText: 'Evaluation under threshold' });
    await banner.getByText('Evaluation under threshold: Lamp helper passed 66.7% (gate 90%).').waitFor({ timeout: 10000 });
    await page.waitForLoadState('networkidle');
    await expectNoSeriousAxeViolations(page, 'Evaluations after a run');
    await screenshot(page, 'evaluations');

    // Narrow: nothing scrolls sideways; still axe clean.
    await page.setViewportSize({ width: 768, height: 900 });
    await page.waitForTimeout(150);
    expect(await page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth')).toBe(false);
    await expectNoSeriousAxeViolations(page, 'Evaluations, 768 pixels wide');
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.goto(`${s.consoleUrl}/w/${people.ws.id}/knowledge`);
    await banner.getByRole('link', { name: /See the results/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Evaluations' }).waitFor();
    expect(br.cspViolations()).toEqual([]);
  });

  it('the export downloads the set as CSV', async () => {
    const page = br.page();
    await openEvaluations(page, people.emails.owner);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    const file = await download.path();
    expect(fs.readFileSync(file, 'utf8')).toContain(WARRANTY);
  });

  it('the owner deletes the document the warranty case depends on (Knowledge page); the automatic run shows it newly failing, and the owners get the e-mail', async () => {
    const page = br.page();
    await signInPage(page, people.emails.owner);
    await page.goto(`${s.consoleUrl}/w/${people.ws.id}/knowledge`);
    const doc = page.getByRole('row').filter({ hasText: TITLE });
    await doc.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await doc.waitFor({ state: 'detached' });
    expect((await people.member.get(`/api/workspaces/${people.ws.id}/knowledge`)).body.data.map((d: { id: string }) => d.id)).not.toContain(documentId);
    // The evaluations service debounces changes; wait for the automatic run to complete.
    const run = await waitFor(
      async () => (await people.member.get(`/api/workspaces/${people.ws.id}/bots/${botId}/evaluations/runs`)).body.data?.[0],
      (r) => r?.trigger === 'knowledge' && r.status === 'completed',
      120000,
      1000,
    );
    expect(run.passed).toBe(1);

    // The gate's e-mail: to the owner and the admin, not the member (kept in the mail outbox: this system has no SMTP server).
    const mails = await waitFor(
      async () => (await admin<{ data: { kind: string; to: string; subject: string; body_text: string }[] }>(['mail', 'list', '--workspace', people.ws.id])).data.filter((m) => m.kind === 'evaluation' && m.subject.includes('passed 33.3%')),
      (m) => m.length >= 2,
      30000,
      500,
    );
    expect(mails.map((m) => m.to).sort()).toEqual([people.emails.admin, people.emails.owner].sort());
    expect(mails[0]!.subject).toBe('Evaluation under its threshold: Lamp helper passed 33.3% (Acme Lamps)');
    expect(mails[0]!.body_text).toContain(WARRANTY);

    await page.goto(evaluationsUrl());
    const warranty = resultOf(page, WARRANTY);
    await warranty.getByText('Newly failing', { exact: true }).waitFor({ timeout: 15000 });
    await warranty.getByText('Rules: Fail').waitFor();
    // Changed cases come first.
    await expect(page.getByRole('list', { name: 'Results' }).getByRole('listitem').first().getByRole('heading').textContent()).resolves.toBe(WARRANTY);
    // The history: the runs as a table (and a chart beside it).
    await page.getByRole('region', { name: 'Runs table' }).getByText('Knowledge changed').waitFor();
    await page.getByRole('img', { name: /Pass rate of the last \d+ completed runs/ }).waitFor();
    await expectNoSeriousAxeViolations(page, 'Evaluations after the automatic run');
    await screenshot(page, 'evaluations-newly-failing');
  });

  it('an owner adds a visitor’s question from a transcript to the test set', async () => {
    const page = br.page();
    await signInPage(page, people.emails.owner);
    await page.goto(`${s.consoleUrl}/w/${people.ws.id}/conversations?session=${encodeURIComponent(sessionId)}`);
    const transcript = page.getByRole('list', { name: 'Transcript' });
    await transcript.getByText(VISITOR_QUESTION).waitFor();
    await transcript.getByRole('button', { name: `Add to test set: ${VISITOR_QUESTION}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Add to test set' });
    expect(await dialog.getByLabel('Question').inputValue()).toBe(VISITOR_QUESTION);
    await dialog.getByLabel('Facts', { exact: true }).fill('We ship to Norway');
    await expectNoSeriousAxeViolations(page, 'Add to test set dialog');
    await dialog.getByRole('button', { name: 'Add to test set' }).click();
    await page.getByText('Added to the test set of Lamp helper.').waitFor();
    await page.getByRole('link', { name: 'Open Evaluations' }).click();
    const row = page.getByRole('region', { name: 'Test set table' }).getByRole('row').filter({ hasText: VISITOR_QUESTION });
    await row.getByText('A transcript').waitFor();
    await row.getByText('We ship to Norway').waitFor();
    const cases = (await people.member.get(`/api/workspaces/${people.ws.id}/bots/${botId}/evaluations/cases`)).body.data;
    expect(cases.find((c: { question: string }) => c.question === VISITOR_QUESTION)).toEqual(expect.objectContaining({ expect: 'facts', facts: ['We ship to Norway'], source: 'transcript' }));
  });

  it('a member reads the test set and the results without the controls', async () => {
    const page = br.page();
    await openEvaluations(page, people.emails.member);
    await page.getByText('Owners and admins change the test set').waitFor();
    await page.getByRole('region', { name: 'Test set table' }).getByRole('rowheader', { name: WARRANTY }).waitFor();
    for (const name of ['Run now', 'Add case', 'Import', 'Save settings']) expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0);
    await page.getByRole('link', { name: 'Export JSONL' }).waitFor();
    await expectNoSeriousAxeViolations(page, 'Evaluations as a member');
  });
});
