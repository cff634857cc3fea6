import { runAdmin } from './support/admin';
import { waitFor } from './support/apps';
import { ConsolePeople, workspaceWithPeople } from './support/console-people';
import { uniqueName } from './support/fixtures';

/**
 * `npm run -s admin -- eval run --bot ID --min-pass R` (issue 33, gates): a customer's CI runs the
 * bot's test set against the running system and is refused a change that makes the bot worse. The
 * real CLI (compiled) asks the evaluations service, which answers every case through chat; it
 * prints the results as JSON and exits 1 under the threshold (the flag's, else the bot's gate) and
 * 0 at or over it.
 */
const CSV = [
  'question,expect,facts,language,note',
  'What are your opening hours?,facts,9 am|5 pm,,',
  'How much does the premium heater cost?,facts,900 dollars,,',
].join('\n');

interface Outcome {
  passed: boolean;
  min_pass_rate: number | null;
  pass_rate: number | null;
  run: { id: string; status: string; trigger: string; total: number; done: number; passed: number };
  results: { question: string; verdict: string; reply: string; passages: { title: string | null }[] }[];
}

describe('admin CLI: eval run gates a change on the pass rate (issue 33)', () => {
  let a: ConsolePeople;
  let bot: string;
  const ev = (suffix: string) => `/api/workspaces/${a.ws.id}/bots/${bot}/evaluations${suffix}`;
  const evalRun = async (...flags: string[]) => {
    const r = await runAdmin(['eval', 'run', '--bot', bot, ...flags]);
    return { ...r, outcome: r.stdout ? (JSON.parse(r.stdout) as Outcome) : null };
  };

  beforeAll(async () => {
    a = await workspaceWithPeople('growth');
    bot = (await a.ws.api.post('/bots', { name: uniqueName('CI gate'), language: 'en' })).body.data.id;
    // No automatic runs: every run here is the CLI's.
    expect((await a.owner.request('PUT', ev('/settings'), { auto_run: false })).status).toBe(200);
    const kb = await a.ws.api.post('/kb/ingest', { title: 'Opening hours', text: 'Our shop is open from 9:00 to 17:00, Monday to Friday. On Saturdays we open at 10:00.', chatbotId: bot });
    expect(kb.status).toBe(202);
    await waitFor(async () => (await a.ws.api.get('/kb')).body.data.find((d: { id: string }) => d.id === kb.body.data.id)?.status, (st) => st === 'ready', 60000, 250);
    expect((await a.owner.post(ev('/cases/import'), { format: 'csv', content: CSV, mode: 'replace' })).status).toBe(200);
  }, 120000);

  it('exits 1 under --min-pass with the results as JSON, and 0 at or over it', async () => {
    const under = await evalRun('--min-pass', '0.9');
    expect(under.code).toBe(1);
    expect(under.outcome).toMatchObject({ passed: false, min_pass_rate: 0.9, pass_rate: 0.5, run: { status: 'completed', trigger: 'cli', total: 2, done: 2, passed: 1 } });
    const byQuestion = Object.fromEntries(under.outcome!.results.map((r) => [r.question, r]));
    expect(byQuestion['What are your opening hours?']).toMatchObject({ verdict: 'pass' });
    expect(byQuestion['What are your opening hours?'].passages[0]?.title).toBe('Opening hours');
    expect(byQuestion['How much does the premium heater cost?']).toMatchObject({ verdict: 'fail' });
    expect(under.stderr).toMatch(/completed: 2 of 2 answered/);

    const over = await evalRun('--min-pass', '50%');
    expect(over.code).toBe(0);
    expect(over.outcome).toMatchObject({ passed: true, min_pass_rate: 0.5, pass_rate: 0.5 });
    expect(over.outcome!.run.id).not.toBe(under.outcome!.run.id);
  }, 180000);

  it("holds the run to the bot's gate without --min-pass", async () => {
    expect((await a.owner.request('PUT', ev('/settings'), { min_pass_rate: 0.75 })).status).toBe(200);
    const gated = await evalRun();
    expect(gated.code).toBe(1);
    expect(gated.outcome).toMatchObject({ passed: false, min_pass_rate: 0.75, pass_rate: 0.5 });
    expect((await a.owner.request('PUT', ev('/settings'), { min_pass_rate: 0.5 })).status).toBe(200);
    expect((await evalRun()).code).toBe(0);
  }, 180000);

  it('refuses bad options (exit 2) and an unknown bot (exit 1) without starting a run', async () => {
    const before = (await a.owner.get(ev('/runs'))).body.data.length;
    const bad = await runAdmin(['eval', 'run', '--bot', bot, '--min-pass', '1.5']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--min-pass must be a pass rate from 0 to 1/);
    const unknown = await runAdmin(['eval', 'run', '--bot', '00000000-0000-4000-8000-00000000dead']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no bot with id/);
    expect((await a.owner.get(ev('/runs'))).body.data.length).toBe(before);
  }, 60000);
});
