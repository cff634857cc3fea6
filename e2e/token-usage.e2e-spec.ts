import { request } from './support/api';
import { waitFor } from './support/apps';
import { expectNoSeriousAxeViolations, screenshot, useBrowser } from './support/browser';
import { ConsoleClient, signInPage } from './support/console';
import { ConsoleSystem, startConsoleSystem, workspaceWithPeople } from './support/console-system';
import { ModelStandIn, standInUsage, startModelStandIn } from './support/model-stand-in';
import { postSse } from './support/sse';

/**
 * Token usage (issue 32, item 5) against a system whose chat model is a local server speaking the
 * OpenAI streaming wire format with its usage report: each answer keeps the tokens the provider
 * reported; the console sums them per bot and day (the playground counts nowhere); an optional
 * monthly token budget answers 402 `quota_exhausted` once reached, like the message quota; members
 * read it, owners and admins set it. Then the Analytics and Workspace pages in Chromium.
 */
const PASSWORD = 'correct horse battery staple';
const OWNER = 'olivia.owner@tokens.example';
const MEMBER = 'max.member@tokens.example';
const PIECES = ['We open ', 'at nine.'];

describe('token usage per bot and day, and the monthly token budget (issue 32)', () => {
  let sys: ConsoleSystem;
  let model: ModelStandIn;
  let ws: { id: string };
  let token: string;
  let botA: string;
  let botB: string;
  let owner: ConsoleClient;
  let member: ConsoleClient;
  const expected = new Map<string, { prompt: number; completion: number; answers: number }>();
  const tokensRoute = (bot?: string) => `/api/workspaces/${ws.id}/analytics/tokens${bot ? `?bot=${bot}` : ''}`;
  const budgetRoute = () => `/api/workspaces/${ws.id}/token-budget`;
  const chat = (bot: string, message: string) => postSse('/chat', { message, chatbotId: bot, sessionId: `tokens-${Math.random()}` }, token, { baseUrl: sys.apiUrl });
  const counted = async (bot: string, message: string) => {
    const res = await chat(bot, message);
    expect([res.status, res.finishReason]).toEqual([200, 'stop']);
    const usage = standInUsage(model.requests.at(-1)!.body, PIECES);
    const e = expected.get(bot) ?? { prompt: 0, completion: 0, answers: 0 };
    expected.set(bot, { prompt: e.prompt + usage.prompt_tokens, completion: e.completion + usage.completion_tokens, answers: e.answers + 1 });
    return res;
  };
  const today = () => new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    model = await startModelStandIn(() => ({ pieces: PIECES, gapMs: 10 }));
    sys = await startConsoleSystem(
      { CHAT_MODEL_PROVIDER: 'openai', CHAT_MODEL_BASE_URL: model.baseUrl, CHAT_MODEL_NAME: 'test-model', CHAT_MODEL_API_KEY: 'sk-test-key', CHAT_MODEL_MAX_RETRIES: '0' },
      { apps: ['gateway', 'bots', 'knowledge', 'chat', 'console'] },
    );
    ({ ws, token, owner, member } = await workspaceWithPeople(sys, 'Token Co', { owner: OWNER, member: MEMBER, password: PASSWORD }));
    botA = (await waitFor(() => request('POST', '/bots', { name: 'Front desk' }, { token, baseUrl: sys.apiUrl }), (r) => r.status === 201, 20000)).body.data.id;
    botB = (await request('POST', '/bots', { name: 'Sales' }, { token, baseUrl: sys.apiUrl })).body.data.id;
  }, 180000);

  afterAll(async () => {
    await sys?.stop();
    await model?.close();
  });

  it("sums the provider's reports per bot and day; the playground and the public API's messages add nothing", async () => {
    expect((await member.get(tokensRoute())).body.data).toEqual({ days: [], budget: { monthly_tokens: null, used_this_month: 0, month_start: expect.any(String) } });
    await counted(botA, 'When do you open?');
    await counted(botA, 'And on Sundays, when do you open?');
    const lastB = await counted(botB, 'Do you sell heaters?');
    expect((await owner.post(`/api/workspaces/${ws.id}/bots/${botA}/playground`, { message: 'When do you open?' })).status).toBe(200);

    const all = (await member.get(tokensRoute())).body.data;
    const row = (bot: string) => ({ day: today(), chatbot_id: bot, prompt_tokens: expected.get(bot)!.prompt, completion_tokens: expected.get(bot)!.completion, answers: expected.get(bot)!.answers });
    expect(all.days).toEqual(expect.arrayContaining([row(botA), row(botB)]));
    expect(all.days).toHaveLength(2);
    const sum = [...expected.values()].reduce((n, e) => n + e.prompt + e.completion, 0);
    expect(all.budget.used_this_month).toBe(sum);
    expect((await member.get(tokensRoute(botB))).body.data.days).toEqual([row(botB)]);
    const other = await sys.admin<{ id: string }>(['workspace', 'create', '--name', 'Other', '--plan', 'scale']);
    const otherToken = (await sys.admin<{ token: string }>(['token', 'create', '--workspace', other.id, '--scopes', 'all'])).token;
    const otherBot = (await request('POST', '/bots', { name: 'Theirs' }, { token: otherToken, baseUrl: sys.apiUrl })).body.data.id;
    expect((await member.get(tokensRoute(otherBot))).status).toBe(404);
    // The spec's ChatMessage is unchanged: no token members.
    const session = lastB.headers.get('x-session-id')!;
    const messages = (await request('GET', `/conversations/${session}`, undefined, { token, baseUrl: sys.apiUrl })).body.data;
    expect(Object.keys(messages[1]).sort()).toEqual(['channel', 'chatbot_id', 'content', 'created_at', 'feedback', 'id', 'provider_message_id', 'role', 'session_id', 'source_urls', 'tenant_id']);
  });

  it('a budget reached answers 402 quota_exhausted until it is raised or removed; members may not set it; bad values are 400', async () => {
    expect((await member.request('PUT', budgetRoute(), { monthly_tokens: 1000 })).status).toBe(403);
    for (const body of [{}, { monthly_tokens: 0 }, { monthly_tokens: -5 }, { monthly_tokens: 1.5 }, { monthly_tokens: '1000' }, { monthly_tokens: 1e13 }, { monthly_tokens: 10, extra: 1 }]) {
      const res = await owner.request('PUT', budgetRoute(), body);
      expect([res.status, JSON.stringify(body)]).toEqual([400, JSON.stringify(body)]);
    }
    const used = (await owner.get(tokensRoute())).body.data.budget.used_this_month;
    const roomy = await owner.request('PUT', budgetRoute(), { monthly_tokens: used + 1 });
    expect([roomy.status, roomy.body.data]).toEqual([200, { monthly_tokens: used + 1, used_this_month: used, month_start: expect.any(String) }]);
    // Under the budget: the turn runs (and goes over it); the next is refused.
    await counted(botA, 'When do you open?');
    const refused = await request('POST', '/chat', { message: 'When do you open?', chatbotId: botA }, { token, baseUrl: sys.apiUrl });
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ error: 'Payment Required', code: 'quota_exhausted', tokens_per_month: used + 1 });
    expect(refused.body.message).toMatch(/token budget/);
    // Removed: chat answers again. Each change is in the audit log.
    expect((await owner.request('PUT', budgetRoute(), { monthly_tokens: null })).body.data.monthly_tokens).toBeNull();
    expect((await chat(botA, 'When do you open?')).status).toBe(200);
    const audit = (await owner.get(`/api/workspaces/${ws.id}/audit`)).body.data.filter((e: { action: string }) => e.action === 'workspace.token_budget_updated');
    expect(audit.length).toBeGreaterThanOrEqual(2);
  });

  describe('in Chromium', () => {
    const br = useBrowser();

    it('the Analytics page lists tokens per bot and day; an owner sets the budget on the Workspace page', async () => {
      const page = br.page();
      await signInPage(page, OWNER, PASSWORD, sys.consoleUrl);
      await page.goto(`${sys.consoleUrl}/w/${ws.id}/analytics`);
      const table = page.getByRole('region', { name: 'Token usage table' });
      await table.waitFor();
      expect(await table.getByRole('row').count()).toBe(3);
      await table.getByRole('cell', { name: 'Front desk' }).waitFor();
      await table.getByRole('cell', { name: 'Sales' }).waitFor();
      await expectNoSeriousAxeViolations(page);
      await page.getByRole('heading', { name: 'Token usage' }).scrollIntoViewIfNeeded();
      await screenshot(page, 'analytics-token-usage');

      await page.goto(`${sys.consoleUrl}/w/${ws.id}/workspace`);
      const form = page.getByRole('form', { name: 'Token budget' });
      await form.getByRole('textbox', { name: 'Monthly token budget' }).fill('not a number');
      await form.getByRole('button', { name: 'Save budget' }).click();
      await form.getByText('Write a whole number of tokens').waitFor();
      await form.getByRole('textbox', { name: 'Monthly token budget' }).fill('2,000,000');
      await form.getByRole('button', { name: 'Save budget' }).click();
      await page.getByText(/of a monthly budget of 2[,.\s]?000[,.\s]?000/).waitFor();
      expect((await owner.get(tokensRoute())).body.data.budget.monthly_tokens).toBe(2_000_000);
      await expectNoSeriousAxeViolations(page);
      await screenshot(page, 'workspace-token-budget');
    });

    it('a member sees the budget as text, without a form', async () => {
      const page = br.page();
      await signInPage(page, MEMBER, PASSWORD, sys.consoleUrl);
      await page.goto(`${sys.consoleUrl}/w/${ws.id}/workspace`);
      await page.getByText(/of a monthly budget of 2[,.\s]?000[,.\s]?000/).waitFor();
      expect(await page.getByRole('form', { name: 'Token budget' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Save budget' }).count()).toBe(0);
    });
  });
});
