import { connect, NatsConnection } from 'nats';
import { Client } from 'pg';
import type { CallerContext } from '@sa/contracts';
import { RpcClient } from '@sa/messaging';
import { request } from './support/api';
import { waitFor } from './support/apps';
import { CONSOLE_APPS, ConsoleSystem, startConsoleSystem, workspaceWithPeople } from './support/console-system';
import { questionOf, startModelStandIn, ModelStandIn } from './support/model-stand-in';
import { e2eState } from './support/state';
import { startWebhookReceiver, WebhookReceiver } from './support/webhook-receiver';

/**
 * Evaluations (issue 33, runs and gates) against a system of its own: the evaluations service as a
 * real process beside the others, a bot with knowledge, and a chat model that is a local server
 * speaking the OpenAI streaming wire format (answering from the passages it is given, slowly
 * enough that a run takes a while). Proves: a run answers every case through the real chat path
 * and grades it; a run survives kill -9 of the evaluations service halfway and completes after
 * the restart with every case answered exactly once; a run moves no analytics, leads, quota or
 * webhook; deleting a document a case depends on starts an automatic run where that case is newly
 * failing, and the owners and admins (not members) get the gate's e-mail.
 */
const PASSWORD = 'correct horse battery staple';
const OWNER = 'olivia.owner@evals.example';
const MEMBER = 'max.member@evals.example';
const HOURS = 'Acme Heating opens at 10 am and closes at 10 pm, Monday to Saturday.';
const PRICES = 'The premium solar water heater costs 1,900 dollars including installation.';
/** Questions that only pad the set, so that a run takes long enough to be killed halfway. */
const PADDING = 14;

/** The stand-in model answers from the passages in its prompt: what it finds there, else [NO_ANSWER]. */
function answer(body: any): string[] {
  const prompt = (body.messages as { content: unknown }[]).map((m) => String(m.content)).join('\n');
  if (prompt.startsWith('You grade one reply')) return judgeOf(prompt);
  const question = questionOf(body).toLowerCase();
  if (/boat/.test(question)) return ['[NO_ANSWER]', ' Sorry, I do not know.'];
  if (/open|hours/.test(question)) return prompt.includes('opens at 10 am') ? ['We open ', 'at 10.00 ', 'and close at 22:00.'] : ['[NO_ANSWER]', ' Sorry.'];
  if (/heater|cost|price/.test(question)) return prompt.includes('1,900 dollars') ? ['It costs ', '1900 dollars', ', installed.'] : ['[NO_ANSWER]', ' Sorry.'];
  return ['I am ', 'not sure.'];
}

/** The stand-in as the judge: pass when the reply gives the heater's price, fail when it does not know, and no JSON at all for boats. */
function judgeOf(prompt: string): string[] {
  const reply = /Reply:\n<<<\n([^]*?)\n>>>/.exec(prompt)?.[1] ?? '';
  const question = /Question:\n<<<\n([^]*?)\n>>>/.exec(prompt)?.[1] ?? '';
  if (/boat/i.test(question)) return ['I would rather not say.'];
  if (reply.includes('1900 dollars')) return ['{"grounded": true, "correct": true, ', '"complete": true, "reason": "States the price from the passage."}'];
  return ['```json\n{"grounded": true, "correct": false, "complete": false, "reason": "Does not give the opening hours."}\n```'];
}

describe('evaluations: runs through the real chat path, resumable, counted nowhere, gated (issue 33)', () => {
  let sys: ConsoleSystem;
  let model: ModelStandIn;
  let receiver: WebhookReceiver;
  let nc: NatsConnection;
  let rpc: RpcClient;
  let db: Client;
  let ws: { id: string };
  let token: string;
  let botId: string;
  let hoursDoc: string;
  let ctx: CallerContext;
  const api = (method: string, path: string, body?: unknown) => request(method, path, body, { token, baseUrl: sys.apiUrl });
  const evalEnv = { EVAL_POLL_MS: '200', EVAL_LEASE_MS: '2000', EVAL_AUTO_DEBOUNCE_MS: '1500', EVAL_CONCURRENCY: '1' };
  const runOf = (runId: string) => rpc.send('evaluations.run.get', { chatbotId: botId, runId }, ctx, { timeoutMs: 10000 });
  const finished = async (runId: string, timeoutMs = 120000) =>
    waitFor(() => runOf(runId), (d) => ['completed', 'failed', 'cancelled'].includes(d?.run?.status), timeoutMs, 300);

  beforeAll(async () => {
    model = await startModelStandIn((body) => ({ pieces: answer(body), gapMs: 60 }));
    receiver = await startWebhookReceiver(e2eState().receiverPort);
    sys = await startConsoleSystem(
      { CHAT_MODEL_PROVIDER: 'openai', CHAT_MODEL_BASE_URL: model.baseUrl, CHAT_MODEL_NAME: 'test-model', CHAT_MODEL_API_KEY: 'sk-test-key', CHAT_MODEL_MAX_RETRIES: '0', ...evalEnv },
      { apps: [...CONSOLE_APPS, 'evaluations'] },
    );
    ({ ws, token } = await workspaceWithPeople(sys, 'Acme Evals', { owner: OWNER, member: MEMBER, password: PASSWORD }));
    ctx = {
      tenantId: ws.id,
      tokenId: null,
      scopes: [],
      botIds: null,
      requestId: 'e2e-evaluations',
      entitlements: { plan: 'scale', botSlots: 10, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 1000, pagesPerBot: 100, widgetMessagesPerBotPerMonth: 100, webhooks: true },
    };
    nc = await connect({ servers: sys.natsUrl });
    rpc = new RpcClient(nc, 10000);
    db = new Client({ connectionString: sys.mini.databaseUrl });
    await db.connect();
    botId = (await waitFor(() => api('POST', '/bots', { name: 'Front desk', language: 'en' }), (r) => r.status === 201, 20000)).body.data.id;
    await sys.admin(['webhook', 'create', '--workspace', ws.id, '--url', receiver.url('/evals'), '--events', 'all']);
    hoursDoc = (await api('POST', '/kb/ingest', { title: 'Opening hours', text: HOURS, chatbotId: botId })).body.data.id;
    await api('POST', '/kb/ingest', { title: 'Heater prices', text: PRICES, chatbotId: botId });
    await waitFor(async () => (await api('GET', `/kb?chatbotId=${botId}`)).body.data, (docs: any[]) => docs.length === 2 && docs.every((d) => d.status === 'ready'), 60000, 250);
    const lines = [
      { question: 'When do you open?', expect: 'facts', facts: ['10 am'] },
      { question: 'How much is the premium heater?', expect: 'facts', facts: ['1,900 dollars'] },
      { question: 'Do you sell boats?', expect: 'unanswered' },
      { question: 'I want to talk to a human', expect: 'handoff' },
      ...Array.from({ length: PADDING }, (_, i) => ({ question: `What are your opening hours, take ${i + 1}?`, expect: 'facts', facts: ['22:00'] })),
    ];
    const imported = await rpc.send('evaluations.case.import', { chatbotId: botId, format: 'jsonl', content: lines.map((l) => JSON.stringify(l)).join('\n') }, ctx);
    expect(imported).toEqual({ imported: 4 + PADDING, total: 4 + PADDING });
  }, 240000);

  afterAll(async () => {
    await db?.end();
    await nc?.drain();
    await sys?.stop();
    await model?.close();
    await receiver?.stop();
  });

  it('answers every case through the chat path and grades it; analytics, leads, quota and webhooks do not move', async () => {
    const usage = async () => ({ messages: await rpc.send('chat.usage.get', {}, ctx), tokens: await rpc.send('chat.tokens.usage', {}, ctx) });
    const before = { analytics: (await api('GET', '/analytics')).body.data, leads: (await api('GET', '/leads')).body.data, usage: await usage(), chats: model.requests.length };
    const run = await rpc.send('evaluations.run.start', { chatbotId: botId, trigger: 'manual' }, ctx);
    expect(run).toMatchObject({ status: 'queued', trigger: 'manual', total: 4 + PADDING, done: 0 });
    // Progress shows while the run goes.
    const going = await waitFor(() => runOf(run.id), (d) => d?.run?.status === 'running' && d.run.done > 0 && d.run.done < d.run.total, 60000, 100);
    expect(going.results.length).toBe(going.run.done);
    const done = await finished(run.id);
    expect(done.run).toMatchObject({ status: 'completed', total: 4 + PADDING, done: 4 + PADDING, passed: 4 + PADDING, pass_rate: 1, below_threshold: false });
    expect(done.run.tokens_used).toBeGreaterThan(0);
    const byQuestion = new Map(done.results.map((r) => [r.question, r]));
    expect(byQuestion.get('When do you open?')).toMatchObject({ verdict: 'pass', reply: 'We open at 10.00 and close at 22:00.', unanswered: false, previous_verdict: null, changed: false });
    expect(byQuestion.get('When do you open?')!.passages[0]).toMatchObject({ title: 'Opening hours', text: expect.stringContaining('opens at 10 am') });
    expect(byQuestion.get('How much is the premium heater?')).toMatchObject({ verdict: 'pass', reply: 'It costs 1900 dollars, installed.' });
    expect(byQuestion.get('Do you sell boats?')).toMatchObject({ verdict: 'pass', unanswered: true });
    expect(byQuestion.get('I want to talk to a human')).toMatchObject({ verdict: 'pass', handoff: true });
    expect(model.requests.length - before.chats).toBeGreaterThanOrEqual(3 + PADDING);

    // Counted nowhere: no analytics, leads, quota use or webhook.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await api('GET', '/analytics')).body.data).toEqual(before.analytics);
    expect((await api('GET', '/leads')).body.data).toEqual(before.leads);
    expect(await usage()).toEqual(before.usage);
    expect(receiver.on('/evals')).toEqual([]);
  }, 180000);

  it('a run killed halfway (kill -9 of its service) completes after the restart, every case answered exactly once', async () => {
    const run = await rpc.send('evaluations.run.start', { chatbotId: botId, trigger: 'cli' }, ctx);
    await waitFor(() => runOf(run.id), (d) => d?.run?.done >= 4, 60000, 50);
    await sys.mini.apps.get('evaluations')!.kill('SIGKILL');
    const atKill = (await db.query('SELECT count(*)::int AS n FROM evaluations.results WHERE run_id = $1', [run.id])).rows[0].n;
    expect(atKill).toBeGreaterThanOrEqual(4);
    expect(atKill).toBeLessThan(4 + PADDING);
    sys.mini.start('evaluations', evalEnv, 'evaluations');
    const done = await finished(run.id);
    expect(done.run).toMatchObject({ status: 'completed', done: 4 + PADDING, total: 4 + PADDING, passed: 4 + PADDING });
    const rows = (await db.query('SELECT case_id, count(*)::int AS n FROM evaluations.results WHERE run_id = $1 GROUP BY case_id', [run.id])).rows;
    expect(rows).toHaveLength(4 + PADDING);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    const cases = (await db.query('SELECT count(*)::int AS n FROM evaluations.run_cases WHERE run_id = $1', [run.id])).rows[0].n;
    expect(cases).toBe(4 + PADDING);
  }, 180000);

  it('deleting a document a case depends on starts an automatic run where the case is newly failing, and owners get the e-mail', async () => {
    await rpc.send('evaluations.settings.update', { chatbotId: botId, min_pass_rate: 0.95, auto_run: true }, ctx);
    const runsBefore = await rpc.send('evaluations.run.list', { chatbotId: botId }, ctx);
    await rpc.send('knowledge.document.delete', { documentId: hoursDoc }, ctx);
    const auto = await waitFor(
      () => rpc.send('evaluations.run.list', { chatbotId: botId }, ctx),
      (runs) => Array.isArray(runs) && runs.length > runsBefore.length && runs[0]!.trigger === 'knowledge',
      60000,
      300,
    );
    const done = await finished(auto[0]!.id);
    expect(done.run).toMatchObject({ status: 'completed', trigger: 'knowledge', min_pass_rate: 0.95, below_threshold: true });
    expect(done.run.pass_rate).toBeLessThan(0.95);
    // The changed cases first: every question about opening hours, newly failing (passed before).
    const first = done.results[0]!;
    expect(first).toMatchObject({ verdict: 'fail', previous_verdict: 'pass', changed: true, reason: 'Counted as unanswered, but should have answered' });
    const open = done.results.find((r) => r.question === 'When do you open?')!;
    expect(open).toMatchObject({ verdict: 'fail', previous_verdict: 'pass', changed: true });
    expect(done.results.find((r) => r.question === 'How much is the premium heater?')).toMatchObject({ verdict: 'pass', changed: false });
    expect(done.results.findIndex((r) => !r.changed)).toBeGreaterThan(done.results.findLastIndex((r) => r.changed));

    // The banner, and the e-mail to owners (not members).
    expect(await rpc.send('evaluations.alert.list', {}, ctx)).toEqual([expect.objectContaining({ chatbot_id: botId, run_id: done.run.id, min_pass_rate: 0.95 })]);
    const [mail] = await waitFor(async () => sys.smtp.to(OWNER), (m) => m.length >= 1, 30000, 200);
    expect(mail!.headers['subject']).toMatch(/^Evaluation under its threshold: Front desk passed \d+(\.\d)?% \(Acme Evals\)$/);
    expect(mail!.text).toContain('When do you open?');
    expect(mail!.text).toContain(`${sys.consoleUrl}/w/${ws.id}/evaluations?bot=${botId}&run=${done.run.id}`);
    expect(sys.smtp.to(MEMBER)).toEqual([]);
    const notified = (await db.query('SELECT notified_at FROM evaluations.runs WHERE id = $1', [done.run.id])).rows[0].notified_at;
    expect(notified).not.toBeNull();
  }, 180000);

  it('with judging on, the model grades each reply beside the rules; output that is not the verdict asked for is no verdict', async () => {
    await rpc.send('evaluations.settings.update', { chatbotId: botId, judge: true, auto_run: false }, ctx);
    const asked = model.requests.length;
    const run = await rpc.send('evaluations.run.start', { chatbotId: botId, trigger: 'manual' }, ctx);
    const done = await finished(run.id);
    expect(done.run.status).toBe('completed');
    const of = (q: string) => done.results.find((r) => r.question === q)!;
    expect(of('How much is the premium heater?')).toMatchObject({ verdict: 'pass', judge: { grounded: true, correct: true, complete: true, verdict: 'pass', reason: 'States the price from the passage.' } });
    // The hours document is gone (previous test): the rules and the judge both fail the answer.
    expect(of('When do you open?')).toMatchObject({ verdict: 'fail', judge: { correct: false, verdict: 'fail', reason: 'Does not give the opening hours.' } });
    expect(of('Do you sell boats?')).toMatchObject({ verdict: 'pass', judge: null });
    // The judge's requests: the installation's model at temperature 0, the grading instructions, the reply fenced as data.
    const judged = model.requests.slice(asked).filter((r) => String(r.body.messages[0]?.content).startsWith('You grade one reply'));
    expect(judged.length).toBe(4 + PADDING);
    expect(judged[0]!.body).toMatchObject({ temperature: 0, max_tokens: 300, stream: true });
    expect(String(judged[0]!.body.messages[1].content)).toMatch(/^Question:\n<<<\n/);
  }, 180000);

  it('a behaviour change and a model change each start an automatic run (debounced), named by their cause', async () => {
    await rpc.send('evaluations.settings.update', { chatbotId: botId, judge: false, auto_run: true }, ctx);
    const nextAuto = async (trigger: string) => {
      const before = (await rpc.send('evaluations.run.list', { chatbotId: botId }, ctx)).length;
      return waitFor(
        () => rpc.send('evaluations.run.list', { chatbotId: botId }, ctx),
        (runs) => Array.isArray(runs) && runs.length > before && runs[0]!.trigger === trigger,
        60000,
        300,
      ).then(async (runs) => finished(runs[0]!.id));
    };
    const behaviourRun = nextAuto('behaviour');
    // Two changes within the debounce: one run.
    await rpc.send('bots.behaviour.update', { botId, instructions: 'Be brief.' }, ctx);
    await rpc.send('bots.behaviour.update', { botId, instructions: 'Be brief and kind.' }, ctx);
    const byBehaviour = await behaviourRun;
    expect(byBehaviour.run).toMatchObject({ status: 'completed', trigger: 'behaviour' });
    await new Promise((r) => setTimeout(r, 2500));
    expect((await rpc.send('evaluations.run.list', { chatbotId: botId }, ctx)).filter((r) => r.trigger === 'behaviour')).toHaveLength(1);

    const modelRun = nextAuto('model');
    await rpc.send('bots.behaviour.update', { botId, temperature: 0.7 }, ctx);
    expect((await modelRun).run).toMatchObject({ status: 'completed', trigger: 'model' });
  }, 180000);
});
