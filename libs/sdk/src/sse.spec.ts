import { ChatStreamError, SupportAgentError, sseDeltas } from './index';

const frame = (text: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;
const STOP = 'data: {"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}]}\n\n';
const failed = (code: string, message: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }], error: { code, message } })}\n\n`;

function streamOf(parts: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const p of parts) controller.enqueue(enc.encode(p));
      controller.close();
    },
  });
}

async function collect(parts: string[]): Promise<string[]> {
  const out: string[] = [];
  for await (const t of sseDeltas(streamOf(parts))) out.push(t);
  return out;
}

describe('sseDeltas (the chat stream of POST /chat)', () => {
  it('yields choices[0].delta.content of each frame, in order', async () => {
    expect(await collect([frame('Hello'), frame(', '), frame('world'), STOP])).toEqual(['Hello', ', ', 'world']);
  });

  it('throws ChatStreamError with the code and message of a last frame whose finish_reason is "error", after the deltas that came', async () => {
    const got: string[] = [];
    const err = await (async () => {
      for await (const t of sseDeltas(streamOf([frame('Half an '), frame('answer'), failed('internal_error', 'The answer was not saved')]))) got.push(t);
    })().catch((e: unknown) => e);
    expect(got).toEqual(['Half an ', 'answer']);
    expect(err).toBeInstanceOf(ChatStreamError);
    expect(err).toMatchObject({ code: 'internal_error', message: 'The answer was not saved' });
  });

  it('throws ChatStreamError "incomplete" when the stream closes without a last frame', async () => {
    await expect(collect([frame('Cut')])).rejects.toMatchObject({ name: 'ChatStreamError', code: 'incomplete' });
    await expect(collect([])).rejects.toMatchObject({ code: 'incomplete' });
  });

  it('reassembles frames split across chunks, including inside a multi-byte character', async () => {
    const all = Buffer.from(frame('naïve 日本') + frame('語') + STOP);
    const bytes = [all.subarray(0, 7), all.subarray(7, 30), all.subarray(30, 33), all.subarray(33)];
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (const b of bytes) c.enqueue(new Uint8Array(b));
        c.close();
      },
    });
    const out: string[] = [];
    for await (const t of sseDeltas(stream)) out.push(t);
    expect(out.join('')).toBe('naïve 日本語');
  });

  it('accepts CRLF line ends, ignores comments, empty deltas and [DONE]', async () => {
    const crlf = frame('a').replace(/\n/g, '\r\n');
    expect(await collect([': keep-alive\n\n', crlf, 'data: {"choices":[{"delta":{}}]}\n\n', frame('b'), 'data: [DONE]\n\n', STOP])).toEqual(['a', 'b']);
  });
});

describe('SupportAgentError', () => {
  it('names the status and the message of either error body', () => {
    expect(new SupportAgentError(401, { error: 'Unauthorized', code: 'unauthorized', message: 'Missing token' } as never).message).toBe('HTTP 401: Missing token');
    expect(new SupportAgentError(400, { success: false, error: { name: 'ValidationError', message: 'bad', issues: [] } } as never).message).toBe('HTTP 400: bad');
    expect(new SupportAgentError(502, 'Bad Gateway').message).toBe('HTTP 502: Bad Gateway');
  });
});
