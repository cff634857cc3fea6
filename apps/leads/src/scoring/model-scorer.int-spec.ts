import type { ServerResponse } from 'node:http';
import { parseConfig } from '@sa/config';
// Test-only dependency.
import { type SeenRequest, fakeModelServers } from '@sa/testing';
import { scoreSession } from './lead-scorer';
import { createLeadScorer, ModelScorer, RuleScorer, type SessionScorer } from './model-scorer';
import { leadsModelConfig } from './model-scorer.config';

type Handler = (seen: SeenRequest, res: ServerResponse) => void;

/**
 * The OpenAI chat-completions wire format, non-streaming, answering what the request asks for:
 * a call of the forced tool when it sends `tools`, else (response_format json_schema or
 * json_object) the assessment as JSON content.
 */
function openAiAssessment(assessment: Record<string, unknown>): Handler {
  return (s, res) => {
    const tools = s.body['tools'] as { function: { name: string } }[] | undefined;
    const message = tools?.length
      ? { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: tools[0].function.name, arguments: JSON.stringify(assessment) } }] }
      : { role: 'assistant', content: JSON.stringify(assessment) };
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: s.body['model'],
        choices: [{ index: 0, message, finish_reason: tools?.length ? 'tool_calls' : 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
      }),
    );
  };
}

/** Ollama's /api/chat format (NDJSON when streamed, one object otherwise), the assessment as content. */
function ollamaAssessment(assessment: Record<string, unknown>): Handler {
  return (s, res) => {
    const done = { model: s.body['model'], created_at: new Date().toISOString(), done: true, done_reason: 'stop', eval_count: 1, prompt_eval_count: 1 };
    const content = JSON.stringify(assessment);
    if (s.body['stream'] === false) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...done, message: { role: 'assistant', content } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    res.write(`${JSON.stringify({ model: s.body['model'], created_at: new Date().toISOString(), message: { role: 'assistant', content }, done: false })}\n`);
    res.end(`${JSON.stringify({ ...done, message: { role: 'assistant', content: '' } })}\n`);
  };
}

const THRESHOLDS = { hot: 70, warm: 40 };

/** A visitor who wants to book, gives a real e-mail address, and a budget. */
const BOOKING = ['Hi, we would like to book a demo for our team next week.', 'Our budget is $5,000. You can reach me at jane.doe@acme.io'];

/** The model's answer: a booking, hot; the e-mail it "remembers" is not the one the visitor wrote. */
const ASSESSMENT = {
  score: 82,
  intent_category: 'booking',
  intent_summary: 'Wants to book a product demo for the team next week; budget about $5,000.',
  sentiment: 'positive',
  qualification: { budget: '$5,000', timeline: 'next week', use_case: 'team demo' },
  name: 'Jane Doe',
  email: 'jane@acme-corp.com',
  phone: '+1 555 0100 999',
  company: 'Acme',
  confidence: 0.9,
};

describe('model lead scorer against local servers', () => {
  const start = fakeModelServers();

  const warnings: { obj: object; msg?: string }[] = [];
  const logger = { warn: (obj: object, msg?: string) => warnings.push({ obj, msg }) };
  beforeEach(() => warnings.splice(0));

  const scorerFor = (env: Record<string, string>): SessionScorer => createLeadScorer(parseConfig(leadsModelConfig, env), logger);
  const openAiEnv = (url: string, extra: Record<string, string> = {}) => ({
    LEADS_MODEL_PROVIDER: 'openai',
    LEADS_MODEL_BASE_URL: `${url}/v1`,
    LEADS_MODEL_API_KEY: 'sk-local-test',
    LEADS_MODEL_NAME: 'toy-scorer',
    LEADS_MODEL_MAX_RETRIES: '0',
    LEADS_MODEL_TIMEOUT_MS: '5000',
    ...extra,
  });

  it('without LEADS_MODEL_PROVIDER scores by the rules', async () => {
    const scorer = scorerFor({});
    expect(scorer).toBeInstanceOf(RuleScorer);
    await expect(scorer.score(BOOKING, THRESHOLDS)).resolves.toEqual(scoreSession(BOOKING, THRESHOLDS));
  });

  describe.each([
    ['json_schema response_format (langchain default)', {}, 'response_format'],
    ['tool calling', { LEADS_MODEL_METHOD: 'functionCalling' }, 'tools'],
  ] as const)('openai-compatible, %s', (_label, extra, asked) => {
    it("uses the model's assessment; contact details only as the visitor wrote them", async () => {
      const server = await start(openAiAssessment(ASSESSMENT));
      const scorer = scorerFor(openAiEnv(server.url, extra));
      expect(scorer).toBeInstanceOf(ModelScorer);

      const s = await scorer.score(BOOKING, THRESHOLDS);

      expect(warnings).toEqual([]);
      const [req] = server.seen;
      expect(req.path).toBe('/v1/chat/completions');
      expect(req.authorization).toBe('Bearer sk-local-test');
      expect(req.body).toMatchObject({ model: 'toy-scorer', temperature: 0 });
      expect(req.body[asked]).toBeDefined();
      const sent = req.body['messages'] as { role: string; content: string }[];
      expect(sent.map((m) => m.role)).toEqual(['system', 'user']);
      expect(sent[1].content).toContain('[2] Our budget is $5,000. You can reach me at jane.doe@acme.io');

      expect(s).toMatchObject({
        score: 82,
        band: 'hot',
        category: 'booking',
        summary: ASSESSMENT.intent_summary,
        sentiment: 'positive',
        confidence: 0.9,
        company: 'Acme',
        capturedVia: 'conversational',
        isLead: true,
      });
      expect(s.qualification).toMatchObject({ budget: '$5,000', timeline: 'next week', use_case: 'team demo' });
      // The hallucinated address is replaced by the one the visitor wrote; the made-up phone is dropped,
      // and so is the name, which the visitor never wrote.
      expect(s.email).toBe('jane.doe@acme.io');
      expect(s.phone).toBeNull();
      expect(s.name).toBeNull();
      expect(s.signals).toContain('model');
    });
  });

  it('drops a hallucinated e-mail when the visitor wrote none, and bands the score by the thresholds', async () => {
    const server = await start(openAiAssessment({ ...ASSESSMENT, score: 55, intent_category: 'pricing', email: 'someone@example.com', phone: null }));
    const messages = ['How much is the premium plan per month?'];
    const s = await scorerFor(openAiEnv(server.url)).score(messages, THRESHOLDS);
    expect(s).toMatchObject({ score: 55, band: 'warm', category: 'pricing', email: null, phone: null, capturedVia: 'inferred', isLead: true });
    expect((await scorerFor(openAiEnv(server.url)).score(messages, { hot: 90, warm: 60 })).band).toBe('cold');
  });

  it('validates and clamps what the model returns, the rules filling the gaps', async () => {
    const server = await start(
      openAiAssessment({ score: 250, intent_category: 'shopping', intent_summary: '', sentiment: 'ecstatic', qualification: ['x'], name: null, email: 'JANE.DOE@ACME.IO', phone: null, company: null, confidence: 7 }),
    );
    const rules = scoreSession(BOOKING, THRESHOLDS);
    const s = await scorerFor(openAiEnv(server.url)).score(BOOKING, THRESHOLDS);
    expect(s).toMatchObject({ score: 100, band: 'hot', category: rules.category, summary: rules.summary, sentiment: rules.sentiment, confidence: 1, email: 'jane.doe@acme.io' });
    expect(s.qualification).toEqual(rules.qualification);
  });

  it('keeps a contact detail the model read correctly where the rules found none', async () => {
    const server = await start(openAiAssessment({ ...ASSESSMENT, email: null, phone: '+81 90 1234 5678' }));
    // No cue the rules know and no + or trunk 0: only the model recognises the number.
    const messages = ['I want to buy the premium plan today, my line is 81 90 1234 5678'];
    const s = await scorerFor(openAiEnv(server.url)).score(messages, THRESHOLDS);
    expect(s.phone).toBe('+819012345678');
    expect(s.capturedVia).toBe('conversational');
  });

  it('falls back to the rules, with a warning, when the server answers 500', async () => {
    const server = await start((_s, res) => {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'model crashed', type: 'server_error' } }));
    });
    const s = await scorerFor(openAiEnv(server.url)).score(BOOKING, THRESHOLDS);
    expect(s).toEqual(scoreSession(BOOKING, THRESHOLDS));
    expect(server.seen).toHaveLength(1); // LEADS_MODEL_MAX_RETRIES=0
    expect(warnings).toHaveLength(1);
    expect(warnings[0].msg).toContain(`openai (model toy-scorer at ${server.url}/v1)`);
    expect(warnings[0].obj).toMatchObject({ status: 500 });
  });

  it('falls back to the rules when the answer is not JSON, and when the server is down', async () => {
    const server = await start((s, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: s.body['model'], choices: [{ index: 0, message: { role: 'assistant', content: 'I think this is a hot lead!' }, finish_reason: 'stop' }] }),
      );
    });
    await expect(scorerFor(openAiEnv(server.url)).score(BOOKING, THRESHOLDS)).resolves.toEqual(scoreSession(BOOKING, THRESHOLDS));
    await expect(scorerFor(openAiEnv('http://127.0.0.1:9')).score(BOOKING, THRESHOLDS)).resolves.toEqual(scoreSession(BOOKING, THRESHOLDS));
    expect(warnings).toHaveLength(2);
  });

  it('falls back to the rules when the model takes longer than LEADS_MODEL_TIMEOUT_MS', async () => {
    const server = await start(() => undefined); // never answers
    const started = Date.now();
    const s = await scorerFor(openAiEnv(server.url, { LEADS_MODEL_TIMEOUT_MS: '300' })).score(BOOKING, THRESHOLDS);
    expect(s).toEqual(scoreSession(BOOKING, THRESHOLDS));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(warnings).toHaveLength(1);
  });

  it('ollama: structured output through /api/chat', async () => {
    const server = await start(ollamaAssessment(ASSESSMENT));
    const s = await scorerFor({ LEADS_MODEL_PROVIDER: 'ollama', OLLAMA_BASE_URL: server.url, LEADS_MODEL_NAME: 'llama3.2', LEADS_MODEL_MAX_RETRIES: '0' }).score(BOOKING, THRESHOLDS);
    expect(warnings).toEqual([]);
    expect(server.seen[0].path).toBe('/api/chat');
    expect(server.seen[0].body).toMatchObject({ model: 'llama3.2' });
    expect(server.seen[0].body['format']).toMatchObject({ type: 'object' });
    expect(s).toMatchObject({ score: 82, band: 'hot', category: 'booking', email: 'jane.doe@acme.io' });
  });
});
