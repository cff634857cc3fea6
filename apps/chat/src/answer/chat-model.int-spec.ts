import 'reflect-metadata';
import type { ServerResponse } from 'node:http';
// Test-only dependency.
import { type SeenRequest, fakeModelServers } from '@sa/testing';
import { buildMessages, createChatModel, streamAnswer } from './chat-model';
import { ChatModelUnavailable } from './chat-model.exception';

type Handler = (seen: SeenRequest, res: ServerResponse) => Promise<void>;

/** Unref'd, so that a stream the client abandoned does not keep jest waiting for its timers. */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/**
 * OpenAI's chat-completions streaming format: `data: <chunk JSON>` frames, then `data: [DONE]`.
 * Waits `gapMs` between deltas; stops writing once the client has gone.
 */
function openAiStream(deltas: string[], gapMs: number, log: string[] = []): Handler {
  return async (s, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let gone = false;
    void s.closedEarly.then(() => (gone = true));
    const frame = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: s.body['model'], choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.write(frame({ role: 'assistant', content: '' }));
    for (const d of deltas) {
      if (gone) return;
      log.push(`sent ${d}`);
      res.write(frame({ content: d }));
      await sleep(gapMs);
    }
    if (gone) return;
    log.push('sent last');
    res.write(frame({}, 'stop'));
    res.end('data: [DONE]\n\n');
  };
}

/** Ollama's /api/chat streaming format: one JSON object a line, the last with done:true. */
function ollamaStream(deltas: string[], gapMs: number): Handler {
  return async (s, res) => {
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    let gone = false;
    void s.closedEarly.then(() => (gone = true));
    const line = (content: string, done: boolean) =>
      `${JSON.stringify({ model: s.body['model'], created_at: new Date().toISOString(), message: { role: 'assistant', content }, done, ...(done ? { done_reason: 'stop', eval_count: deltas.length } : {}) })}\n`;
    for (const d of deltas) {
      if (gone) return;
      res.write(line(d, false));
      await sleep(gapMs);
    }
    if (!gone) res.end(line('', true));
  };
}

const passages = [
  { text: 'The Premium plan costs 2,900 yen per month.', score: 0.9, document_id: 'd1', title: 'Pricing', source_url: 'https://shop.example/pricing' },
  { text: 'Refunds are possible within 30 days.', score: 0.5, document_id: 'd2', title: 'Refunds', source_url: null },
];
const messages = () => buildMessages({ question: 'プレミアムプランの料金は？', passages, history: [{ role: 'user', content: 'こんにちは' }], language: 'ja-JP', botName: 'Aiko' });

async function collect(stream: AsyncIterable<string>, onDelta?: (d: string) => void): Promise<string[]> {
  const out: string[] = [];
  for await (const d of stream) {
    out.push(d);
    onDelta?.(d);
  }
  return out;
}

describe('chat models against local servers', () => {
  const start = fakeModelServers();

  describe('openai-compatible', () => {
    const envFor = (url: string) => ({
      CHAT_MODEL_PROVIDER: 'openai',
      CHAT_MODEL_BASE_URL: `${url}/v1`,
      CHAT_MODEL_API_KEY: 'sk-local-test',
      CHAT_MODEL_NAME: 'toy-chat',
      CHAT_MODEL_MAX_RETRIES: '0',
    });

    it('streams deltas as they arrive and sends the model, key, and grounded prompt', async () => {
      const log: string[] = [];
      const server = await start(openAiStream(['プレミアム', 'プランは', '月額2,900円', 'です。'], 150, log));
      const model = createChatModel(envFor(server.url))!;

      const deltas = await collect(streamAnswer(model, messages(), new AbortController().signal), (d) => log.push(`got ${d}`));

      expect(deltas.join('')).toBe('プレミアムプランは月額2,900円です。');
      // Incremental: the first delta reached us before the server sent its last one.
      expect(log.indexOf('got プレミアム')).toBeLessThan(log.indexOf('sent last'));
      expect(log.indexOf('got プレミアム')).toBeLessThan(log.indexOf('sent です。'));

      const [req] = server.seen;
      expect(req.path).toBe('/v1/chat/completions');
      expect(req.authorization).toBe('Bearer sk-local-test');
      expect(req.body).toMatchObject({ model: 'toy-chat', stream: true, temperature: 0.2 });
      const sent = req.body['messages'] as { role: string; content: string }[];
      expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'user']);
      expect(sent[0].content).toContain('Reply in Japanese (ja-JP)');
      expect(sent[0].content).toContain('You are Aiko');
      expect(sent[0].content).toContain('[1] Pricing — https://shop.example/pricing\nThe Premium plan costs 2,900 yen per month.');
      expect(sent[0].content).toContain('[2] Refunds\nRefunds are possible within 30 days.');
      expect(sent[0].content).toContain('[HANDOFF]');
      expect(sent[2].content).toBe('プレミアムプランの料金は？');
    });

    it('aborting mid-stream closes the request to the server and ends the iteration', async () => {
      const server = await start(openAiStream(Array.from({ length: 50 }, (_, i) => `w${i} `), 100));
      const model = createChatModel(envFor(server.url))!;
      const controller = new AbortController();

      const started = Date.now();
      const deltas = await collect(streamAnswer(model, messages(), controller.signal), (d) => {
        if (d === 'w1 ') controller.abort();
      });

      expect(deltas).toEqual(['w0 ', 'w1 ']);
      expect(Date.now() - started).toBeLessThan(2000); // not the 5 s the whole answer takes
      await expect(Promise.race([server.seen[0].closedEarly.then(() => 'closed'), sleep(2000).then(() => 'still open')])).resolves.toBe('closed');
    });

    it('an abort while waiting for the next delta ends the iteration at once', async () => {
      const server = await start(openAiStream(['first ', 'second'], 3000));
      const model = createChatModel(envFor(server.url))!;
      const controller = new AbortController();
      const started = Date.now();
      const deltas = await collect(streamAnswer(model, messages(), controller.signal), () => setTimeout(() => controller.abort(), 100));
      expect(deltas).toEqual(['first ']);
      expect(Date.now() - started).toBeLessThan(1500);
      await expect(Promise.race([server.seen[0].closedEarly.then(() => 'closed'), sleep(2000).then(() => 'still open')])).resolves.toBe('closed');
    });

    it('turns a server error into a clear ChatModelUnavailable', async () => {
      const server = await start(async (_s, res) => {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'model crashed', type: 'server_error' } }));
      });
      const model = createChatModel(envFor(server.url))!;
      const failure = collect(streamAnswer(model, messages(), new AbortController().signal));
      await expect(failure).rejects.toBeInstanceOf(ChatModelUnavailable);
      await expect(collect(streamAnswer(model, messages(), new AbortController().signal))).rejects.toThrow(
        `The chat model service is unavailable (openai (model toy-chat at ${server.url}/v1) failed with HTTP 500: 500 model crashed)`,
      );
      expect(server.seen).toHaveLength(2); // CHAT_MODEL_MAX_RETRIES=0: no retry
    });
  });

  describe('ollama', () => {
    const envFor = (url: string) => ({ CHAT_MODEL_PROVIDER: 'ollama', OLLAMA_BASE_URL: url, CHAT_MODEL_NAME: 'llama3.2' });

    it('streams /api/chat NDJSON deltas with the model and the prompt', async () => {
      const server = await start(ollamaStream(['Premium ', 'costs ', '2,900 yen.'], 50));
      const deltas = await collect(streamAnswer(createChatModel(envFor(server.url))!, messages(), new AbortController().signal));
      expect(deltas.join('')).toBe('Premium costs 2,900 yen.');
      const [req] = server.seen;
      expect(req.path).toBe('/api/chat');
      expect(req.body).toMatchObject({ model: 'llama3.2', stream: true, options: { temperature: 0.2 } });
      expect((req.body['messages'] as { content: string }[])[0].content).toContain('Reply in Japanese (ja-JP)');
    });

    it('aborting closes that request at once, not at the next chunk', async () => {
      const server = await start(ollamaStream(['first ', 'second'], 3000));
      const controller = new AbortController();
      const started = Date.now();
      const deltas = await collect(streamAnswer(createChatModel(envFor(server.url))!, messages(), controller.signal), () => setTimeout(() => controller.abort(), 100));
      expect(deltas).toEqual(['first ']);
      expect(Date.now() - started).toBeLessThan(1500);
      await expect(Promise.race([server.seen[0].closedEarly.then(() => 'closed'), sleep(2000).then(() => 'still open')])).resolves.toBe('closed');
    });

    it('turns a missing model into a clear ChatModelUnavailable', async () => {
      const server = await start(async (_s, res) => {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'model "llama3.2" not found, try pulling it first' }));
      });
      await expect(collect(streamAnswer(createChatModel(envFor(server.url))!, messages(), new AbortController().signal))).rejects.toThrow(
        `The chat model service is unavailable (ollama (model llama3.2 at ${server.url}) failed with HTTP 404: model "llama3.2" not found, try pulling it first)`,
      );
    });
  });
});
