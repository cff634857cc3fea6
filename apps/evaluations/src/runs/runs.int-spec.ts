import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@sa/db';
// Test-only dependency.
import { createTestDatabase, domainErrorCode } from '@sa/testing';
import { CasesRepository } from '../cases/cases.repository';
import { RunLost, RunsRepository } from './runs.repository';

// The evaluations repositories against the real PostgreSQL, connected as the service's own role:
// the test set and its limits, a run's snapshot, the lease, exactly-once results, cancellation of
// a superseded run, the gate's e-mail retry and the debounce of automatic runs.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let cases: CasesRepository;
let runs: RunsRepository;

beforeAll(async () => {
  db = await createTestDatabase('sa_evaluations');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('evaluations'), applicationName: 'evaluations-int', poolSize: 5 })).initialize();
  cases = new CasesRepository(ds);
  runs = new RunsRepository(ds);
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

const line = (question: string, facts = ['10 am']) => ({ question, language: null, expect: 'facts' as const, facts, note: null });
const result = (caseId: string, verdict: 'pass' | 'fail' | 'error' = 'pass', tokens = 10) => ({ caseId, verdict, reason: 'r', reply: 'We open at 10 am', unanswered: false, handoff: false, passages: [], judge: null, tokens, latencyMs: 5 });

describe('the test set', () => {
  it('keeps a question once per bot and language, imports all or nothing, and exports in order', async () => {
    const t = randomUUID();
    const bot = randomUUID();
    const a = await cases.create(t, bot, line('When do you open?'), 'manual');
    expect(a).toMatchObject({ question: 'When do you open?', expect: 'facts', facts: ['10 am'], source: 'manual' });
    expect(await domainErrorCode(cases.create(t, bot, line('WHEN do you open?'), 'manual'))).toBe('conflict');
    await cases.create(t, bot, { ...line('When do you open?'), language: 'de' }, 'manual');
    // Another workspace's bot with the same id sees nothing of it.
    expect(await cases.list(randomUUID(), bot)).toEqual([]);

    const imported = await cases.import(t, bot, [line('Q1'), line('when do you open?'), line('Q2')], 'append');
    expect(imported).toEqual({ imported: 2, total: 4 });
    expect((await cases.list(t, bot)).map((c) => [c.question, c.source])).toEqual([
      ['When do you open?', 'manual'],
      ['When do you open?', 'manual'],
      ['Q1', 'import'],
      ['Q2', 'import'],
    ]);
    expect(await cases.import(t, bot, [line('R1'), line('R2')], 'replace')).toEqual({ imported: 2, total: 2 });
    expect((await cases.list(t, bot)).map((c) => c.question)).toEqual(['R1', 'R2']);
  });

  it('holds at most EVAL_SET_MAX_BYTES of text per bot (so the set fits one NATS message): an import, a case or a change past it is refused whole', async () => {
    const t = randomUUID();
    const bot = randomUUID();
    // 300 cases of 2000 three-byte characters: 1.8 MB, over the 512 KiB.
    const big = Array.from({ length: 300 }, (_, i) => line(`${i} ${'語'.repeat(1990)}`));
    expect(await domainErrorCode(cases.import(t, bot, big, 'append'))).toBe('conflict');
    expect(await cases.count(t, bot)).toBe(0);
    // 87 of them: 87 × 5,978 bytes = 520,086 bytes, just under 524,288.
    const fits = big.slice(0, 87);
    expect(await cases.import(t, bot, fits, 'append')).toEqual({ imported: 87, total: 87 });
    const more = await Promise.all([cases.create(t, bot, line('short'), 'manual')]);
    expect(await domainErrorCode(cases.create(t, bot, line(`x ${'語'.repeat(1990)}`), 'manual'))).toBe('conflict');
    expect(await domainErrorCode(cases.update(t, bot, more[0]!.id, line('short', ['語'.repeat(500), '語'.repeat(500), '語'.repeat(500), '語'.repeat(500), '語'.repeat(500)])))).toBe('conflict');
    expect((await cases.find(t, bot, more[0]!.id))!.facts).toEqual(['10 am']);
    expect(await cases.count(t, bot)).toBe(88);
  });

  it('settings: defaults, partial changes, null removes the gate', async () => {
    const t = randomUUID();
    const bot = randomUUID();
    expect(await cases.settings(t, bot)).toEqual({ chatbot_id: bot, min_pass_rate: null, auto_run: true, judge: false });
    expect(await cases.updateSettings(t, bot, { min_pass_rate: 0.8 })).toEqual({ chatbot_id: bot, min_pass_rate: 0.8, auto_run: true, judge: false });
    expect(await cases.updateSettings(t, bot, { judge: true })).toEqual({ chatbot_id: bot, min_pass_rate: 0.8, auto_run: true, judge: true });
    expect(await cases.updateSettings(t, bot, { min_pass_rate: null, auto_run: false })).toEqual({ chatbot_id: bot, min_pass_rate: null, auto_run: false, judge: true });
  });
});

describe('runs', () => {
  it('snapshot, lease, exactly-once results, completion under the gate and its e-mail, previous verdicts', async () => {
    const t = randomUUID();
    const bot = randomUUID();
    expect(await domainErrorCode(runs.create(t, bot, 'manual', 1000))).toBe('conflict'); // empty set
    await cases.import(t, bot, [line('A'), line('B'), line('C')], 'append');
    await cases.updateSettings(t, bot, { min_pass_rate: 0.9 });
    const first = await runs.create(t, bot, 'manual', 1000);
    expect(first).toMatchObject({ status: 'queued', total: 3, done: 0, min_pass_rate: 0.9 });
    // Edits after the start change nothing in the run.
    const [a] = await cases.list(t, bot);
    await cases.update(t, bot, a!.id, line('A, edited'));

    const claimed = (await runs.claim('w1', 60_000))!;
    expect(claimed.id).toBe(first.id);
    expect(await runs.claim('w2', 60_000)).toBeNull(); // leased
    const todo = await runs.unanswered(first.id);
    expect(todo.map((c) => c.question)).toEqual(['A', 'B', 'C']);
    expect(await runs.record(claimed, 'w1', result(todo[0]!.case_id))).toBe(10);
    // Another worker cannot write; the same case twice counts once.
    await expect(runs.record(claimed, 'w2', result(todo[1]!.case_id))).rejects.toBeInstanceOf(RunLost);
    expect(await runs.record(claimed, 'w1', result(todo[0]!.case_id))).toBe(10);
    expect(await runs.complete(first.id, 'w1')).toBeNull(); // not done yet

    // The worker dies: its lease lapses and another takes the run over, with the unanswered cases only.
    await ds.query(`UPDATE evaluations.runs SET claimed_until = clock_timestamp() - interval '1 second' WHERE id = $1`, [first.id]);
    const taken = (await runs.claim('w2', 60_000))!;
    expect(taken).toMatchObject({ id: first.id, done: 1, tokens_used: 10 });
    await expect(runs.record(taken, 'w1', result(todo[1]!.case_id))).rejects.toBeInstanceOf(RunLost);
    expect((await runs.unanswered(first.id)).map((c) => c.question)).toEqual(['B', 'C']);
    await runs.record(taken, 'w2', result(todo[1]!.case_id, 'fail'));
    await runs.record(taken, 'w2', result(todo[2]!.case_id));
    const done = (await runs.complete(first.id, 'w2'))!;
    expect(done).toMatchObject({ status: 'completed', done: 3, passed: 2, tokens_used: 30 });
    expect(done.pass_rate).toBeCloseTo(2 / 3);
    const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM evaluations.results WHERE run_id = $1`, [first.id]);
    expect(n).toBe(3);

    // Under its gate: the e-mail is due, retried until it is recorded as sent.
    expect(await runs.alerts(t)).toEqual([expect.objectContaining({ chatbot_id: bot, run_id: first.id, min_pass_rate: 0.9 })]);
    const due = (await runs.claimNotification(() => 60_000))!;
    expect(due).toMatchObject({ id: first.id, notify_attempts: 1 });
    expect(await runs.claimNotification(() => 60_000)).toBeNull(); // pushed out
    await ds.query(`UPDATE evaluations.runs SET notify_after = clock_timestamp() WHERE id = $1`, [first.id]);
    expect((await runs.claimNotification(() => 60_000))!.notify_attempts).toBe(2);
    await runs.notified(first.id);
    await ds.query(`UPDATE evaluations.runs SET notify_after = clock_timestamp() WHERE id = $1`, [first.id]);
    expect(await runs.claimNotification(() => 60_000)).toBeNull();

    // The next run: B passes now (changed, listed first), A stays.
    const second = await runs.create(t, bot, 'cli', 1000);
    const w = (await runs.claim('w3', 60_000))!;
    const next = await runs.unanswered(second.id);
    expect(next.map((c) => c.question)).toEqual(['A, edited', 'B', 'C']);
    await runs.record(w, 'w3', result(next[0]!.case_id));
    await runs.record(w, 'w3', result(next[1]!.case_id));
    await runs.record(w, 'w3', result(next[2]!.case_id, 'fail'));
    const row = (await runs.complete(second.id, 'w3'))!;
    const previous = await runs.previousCompleted(t, bot, row);
    expect(previous).toBe(first.id);
    const listed = await runs.results(t, row, previous);
    expect(listed.total).toBe(3);
    expect(listed.rows.map((r) => [r.question, r.verdict, r.previous_verdict, r.changed])).toEqual([
      ['B', 'pass', 'fail', true],
      ['C', 'fail', 'pass', true],
      ['A, edited', 'pass', 'pass', false],
    ]);
    // Pages keep that order.
    const page2 = await runs.results(t, row, previous, 1, 1);
    expect([page2.total, page2.rows.map((r) => r.question)]).toEqual([3, ['C']]);
    expect(await runs.newlyFailing(t, row, 20)).toEqual(['C']);
  });

  it('a new run cancels the bot’s queued or running one; its worker can no longer write', async () => {
    const t = randomUUID();
    const bot = randomUUID();
    await cases.import(t, bot, [line('A'), line('B')], 'append');
    const old = await runs.create(t, bot, 'manual', 1000);
    const w = (await runs.claim('w1', 60_000))!;
    expect(w.id).toBe(old.id);
    const [c] = await runs.unanswered(old.id);
    const fresh = await runs.create(t, bot, 'knowledge', 1000);
    expect((await runs.find(t, bot, old.id))!).toMatchObject({ status: 'cancelled', error: 'Replaced by a newer run' });
    await expect(runs.record(w, 'w1', result(c!.case_id))).rejects.toBeInstanceOf(RunLost);
    expect(await runs.renew(old.id, 'w1', 60_000)).toBe(false);
    expect((await runs.list(t, bot, 10)).map((r) => [r.id, r.status])).toEqual([
      [fresh.id, 'queued'],
      [old.id, 'cancelled'],
    ]);
  });

  it('automatic runs: debounced per bot in the database, only bots with cases and auto_run on', async () => {
    const t = randomUUID();
    const [withCases, off, without] = [randomUUID(), randomUUID(), randomUUID()];
    await cases.import(t, withCases, [line('A'), line('B')], 'append');
    await cases.import(t, off, [line('A')], 'append');
    await cases.updateSettings(t, off, { auto_run: false });
    // Workspace-wide knowledge: every bot of the workspace with a test set.
    expect(await runs.schedule(t, null, 'knowledge', 60_000)).toBe(1);
    expect(await runs.schedule(t, without, 'behaviour', 60_000)).toBe(0);
    expect((await runs.dueAutomatic(100)).filter((d) => d.tenant_id === t)).toEqual([]); // not due yet
    await ds.query(`UPDATE evaluations.settings SET auto_due_at = clock_timestamp() WHERE tenant_id = $1 AND auto_due_at IS NOT NULL`, [t]);
    expect((await runs.dueAutomatic(100)).filter((d) => d.tenant_id === t)).toEqual([{ tenant_id: t, chatbot_id: withCases }]);
    const run = (await runs.startDue(t, withCases, 1000, true))!;
    expect(run).toMatchObject({ trigger: 'knowledge', status: 'queued', total: 2 });
    expect(await runs.startDue(t, withCases, 1000, true)).toBeNull(); // no longer due
    // Without live access it is cleared, and no run starts.
    await runs.schedule(t, withCases, 'model', 0);
    expect(await runs.startDue(t, withCases, 1000, false)).toBeNull();
    expect((await runs.list(t, withCases, 10)).length).toBe(1);
  });
});
