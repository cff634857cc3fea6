import { randomUUID } from 'node:crypto';
import { admin, createUser } from './support/admin';
import { client } from './support/api';
import { waitFor } from './support/apps';
import { ConsoleClient } from './support/console';
import { CONSOLE_PASSWORD, ConsolePeople, workspaceWithPeople } from './support/console-people';
import { uniqueName } from './support/fixtures';

/**
 * The console's Evaluations API (issue 33) against the running system: the routes mirror the
 * evaluations.* subjects; members read (the test set, its export, settings, runs, the alerts) and
 * are refused every write (403 forbidden_role); bodies, paths and queries are checked (400), an
 * import with a bad line is refused whole (400); the export is a download of the right type;
 * another workspace's bot is 404; a run without live access is 402 api_locked; changes are in the
 * audit log.
 */
const CSV = [
  'question,expect,facts,language,note',
  'How long is the warranty?,facts,five years,,',
  'Do you sell boats?,unanswered,,,',
  'Can I talk to a person?,handoff,,de,escalation',
].join('\n');

describe('console: the Evaluations API (issue 33)', () => {
  let a: ConsolePeople;
  let b: ConsolePeople;
  let bot: string;
  let otherBot: string;
  const ev = (suffix = '', p: ConsolePeople = a, botId = bot) => `/api/workspaces/${p.ws.id}/bots/${botId}/evaluations${suffix}`;

  beforeAll(async () => {
    [a, b] = [await workspaceWithPeople('growth'), await workspaceWithPeople('growth')];
    bot = (await a.ws.api.post('/bots', { name: uniqueName('Eval bot') })).body.data.id;
    otherBot = (await b.ws.api.post('/bots', { name: uniqueName('Theirs') })).body.data.id;
  }, 60000);

  it('an owner imports a CSV test set; everyone reads it; members are refused every write (403)', async () => {
    const imported = await a.owner.post(ev('/cases/import'), { format: 'csv', content: CSV, mode: 'replace' });
    expect([imported.status, imported.body]).toEqual([200, { data: { imported: 3, total: 3 } }]);

    for (const who of [a.owner, a.admin, a.member]) {
      const list = await who.get(ev('/cases'));
      expect(list.status).toBe(200);
      expect(list.body.data.map((c: { question: string; expect: string; facts: string[]; source: string }) => [c.question, c.expect, c.facts, c.source])).toEqual([
        ['How long is the warranty?', 'facts', ['five years'], 'import'],
        ['Do you sell boats?', 'unanswered', [], 'import'],
        ['Can I talk to a person?', 'handoff', [], 'import'],
      ]);
      expect((await who.get(ev('/settings'))).status).toBe(200);
      expect((await who.get(ev('/runs'))).status).toBe(200);
      expect((await who.get(`/api/workspaces/${a.ws.id}/evaluations/alerts`)).status).toBe(200);
    }

    const caseId = (await a.member.get(ev('/cases'))).body.data[0].id as string;
    const refused = [
      await a.member.post(ev('/cases'), { question: 'Hi?', expect: 'unanswered' }),
      await a.member.patch(ev(`/cases/${caseId}`), { question: 'Changed?' }),
      await a.member.delete(ev(`/cases/${caseId}`)),
      await a.member.post(ev('/cases/import'), { format: 'csv', content: CSV }),
      await a.member.request('PUT', ev('/settings'), { auto_run: false }),
      await a.member.post(ev('/runs')),
    ];
    expect(refused.map((r) => [r.status, r.body.code])).toEqual(refused.map(() => [403, 'forbidden_role']));
    expect((await a.member.get(ev('/cases'))).body.data).toHaveLength(3);
  });

  it('an admin adds, changes and deletes a case (a transcript’s question keeps its source); the audit log has each change', async () => {
    const created = await a.admin.post(ev('/cases'), { question: 'Is the lamp dimmable?', expect: 'facts', facts: ['three brightness levels'], source: 'transcript' });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual(expect.objectContaining({ question: 'Is the lamp dimmable?', expect: 'facts', facts: ['three brightness levels'], source: 'transcript', language: null }));
    const id = created.body.data.id as string;
    const changed = await a.admin.patch(ev(`/cases/${id}`), { language: 'de' });
    expect([changed.status, changed.body.data.language]).toEqual([200, 'de']);
    expect((await a.admin.delete(ev(`/cases/${id}`))).status).toBe(204);
    expect((await a.admin.delete(ev(`/cases/${id}`))).status).toBe(404);

    const audit = (await a.owner.get(`/api/workspaces/${a.ws.id}/audit`)).body.data as { action: string; target_id: string; details: Record<string, unknown> }[];
    const ours = audit.filter((e) => e.action.startsWith('evaluation.')).map((e) => [e.action, e.target_id]);
    expect(ours).toEqual(
      expect.arrayContaining([
        ['evaluation.cases_imported', bot],
        ['evaluation.case_created', bot],
        ['evaluation.case_updated', bot],
        ['evaluation.case_deleted', bot],
      ]),
    );
  });

  it('refuses bad bodies, paths and queries (400), and an import with one bad line as a whole', async () => {
    const bad: [string, string, unknown][] = [
      ['POST', ev('/cases'), { question: '', expect: 'facts', facts: ['x'] }],
      ['POST', ev('/cases'), { question: 'Hi?', expect: 'maybe' }],
      ['POST', ev('/cases'), { question: 'Hi?', expect: 'facts', facts: ['x'], colour: 'red' }],
      ['POST', ev('/cases'), { question: 'Hi?', expect: 'facts', facts: ['x'], language: 'not a language' }],
      ['POST', ev('/cases/import'), { format: 'xml', content: 'a' }],
      ['POST', ev('/cases/import'), { format: 'csv', content: '' }],
      ['POST', ev('/cases/import'), { format: 'csv', content: CSV, mode: 'merge' }],
      ['PUT', ev('/settings'), { min_pass_rate: 1.5 }],
      ['PUT', ev('/settings'), { auto_run: 'yes' }],
      ['POST', ev('/runs'), { now: true }],
      ['PATCH', ev('/cases/not-a-uuid'), { question: 'x' }],
      ['GET', ev('/cases/export?format=xml'), undefined],
      ['GET', ev('/cases/export'), undefined],
      ['GET', ev('/runs?limit=0'), undefined],
      ['GET', ev('/runs/not-a-uuid'), undefined],
      ['GET', ev(`/runs/${randomUUID()}?limit=0`), undefined],
      ['GET', ev(`/runs/${randomUUID()}?limit=201`), undefined],
      ['GET', ev(`/runs/${randomUUID()}?offset=-1`), undefined],
      ['GET', `/api/workspaces/${a.ws.id}/bots/not-a-uuid/evaluations/cases`, undefined],
    ];
    for (const [method, path, body] of bad) {
      const res = await a.owner.request(method, path, body);
      expect([method, path, res.status]).toEqual([method, path, 400]);
    }
    const badLine = await a.owner.post(ev('/cases/import'), { format: 'csv', content: `${CSV}\nWhat?,sometimes,,,`, mode: 'replace' });
    expect(badLine.status).toBe(400);
    expect(badLine.text).toMatch(/5/);
    const badJson = await a.owner.post(ev('/cases/import'), { format: 'jsonl', content: '{"question":"Hi?","expect":"unanswered"}\n{not json' });
    expect(badJson.status).toBe(400);
    // Nothing of either was imported.
    expect((await a.owner.get(ev('/cases'))).body.data).toHaveLength(3);
  });

  it('exports the test set as a CSV or JSONL download that imports again', async () => {
    const csv = await a.member.get(ev('/cases/export?format=csv'));
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="[^"]+\.csv"$/);
    expect(csv.text).toContain('How long is the warranty?');
    const jsonl = await a.member.get(ev('/cases/export?format=jsonl'));
    expect(jsonl.status).toBe(200);
    expect(jsonl.headers.get('content-type')).toMatch(/^application\/jsonl/);
    expect(jsonl.headers.get('content-disposition')).toMatch(/\.jsonl"$/);
    const lines = jsonl.text.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l: { question: string }) => l.question)).toEqual(['How long is the warranty?', 'Do you sell boats?', 'Can I talk to a person?']);
    const again = await a.owner.post(ev('/cases/import'), { format: 'jsonl', content: jsonl.text, mode: 'replace' });
    expect([again.status, again.body.data]).toEqual([200, { imported: 3, total: 3 }]);
  });

  it('saves settings (owners and admins); another workspace’s bot is 404 on every route', async () => {
    const saved = await a.admin.request('PUT', ev('/settings'), { min_pass_rate: 0.9, judge: false });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toEqual(expect.objectContaining({ chatbot_id: bot, min_pass_rate: 0.9, judge: false }));
    expect((await a.member.get(ev('/settings'))).body.data.min_pass_rate).toBe(0.9);

    const theirs = [
      await a.owner.get(ev('/cases', a, otherBot)),
      await a.owner.post(ev('/cases', a, otherBot), { question: 'Hi?', expect: 'unanswered' }),
      await a.owner.get(ev('/settings', a, otherBot)),
      await a.owner.get(ev('/runs', a, otherBot)),
      await a.owner.post(ev('/runs', a, otherBot)),
      await a.owner.get(ev(`/runs/${randomUUID()}`)),
    ];
    expect(theirs.map((r) => r.status)).toEqual(theirs.map(() => 404));
  });

  it('starts a run (202, queued or running) and refuses one without live access (402 api_locked)', async () => {
    const started = await a.admin.post(ev('/runs'));
    expect(started.status).toBe(202);
    expect(started.body.data).toEqual(expect.objectContaining({ chatbot_id: bot, trigger: 'manual', total: 3 }));
    expect(['queued', 'running', 'completed']).toContain(started.body.data.status);
    const run = await waitFor(
      async () => (await a.member.get(ev(`/runs/${started.body.data.id}`))).body.data,
      (d) => d?.run?.status === 'completed' || d?.run?.status === 'failed',
      60000,
      500,
    );
    expect(run.results).toHaveLength(3);

    const lapsed = await admin<{ id: string }>(['workspace', 'create', '--name', uniqueName('Lapsed'), '--plan', 'scale']);
    const token = (await admin<{ token: string }>(['token', 'create', '--workspace', lapsed.id, '--scopes', 'all'])).token;
    const email = `lara-${randomUUID().slice(0, 8)}@lapsed.example`;
    await createUser(lapsed.id, email, 'owner', CONSOLE_PASSWORD);
    const lara = new ConsoleClient();
    expect((await lara.signIn(email, CONSOLE_PASSWORD)).status).toBe(200);
    const sleeping = (await client(token).post('/bots', { name: 'Sleeping' })).body.data.id as string;
    await admin(['workspace', 'update', '--id', lapsed.id, '--plan', 'growth_trial', '--trial-ends', '2020-01-01T00:00:00Z']);
    const locked = await waitFor(() => lara.post(`/api/workspaces/${lapsed.id}/bots/${sleeping}/evaluations/runs`), (r) => r.status !== 202, 10000, 200);
    expect([locked.status, locked.body.code]).toEqual([402, 'api_locked']);
  });
});
