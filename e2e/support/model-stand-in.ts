import * as http from 'node:http';
import { freePort } from './infra';

/** What the stand-in answers one request with: the pieces of the reply, the gap between them, and whether the connection drops after the pieces instead of finishing. */
export interface StandInAnswer {
  pieces: string[];
  gapMs?: number;
  dropAfterPieces?: boolean;
}

export interface StandInRequest {
  body: any;
  /** The client closed the connection before the answer was complete (generation cancelled). */
  closedEarly: boolean;
}

export interface ModelStandIn {
  /** The base URL to give as CHAT_MODEL_BASE_URL. */
  baseUrl: string;
  requests: StandInRequest[];
  close(): Promise<void>;
}

/**
 * A local HTTP server that speaks the OpenAI chat-completions streaming wire format (the one
 * allowed stand-in: a remote paid model we cannot reach): `data: {chat.completion.chunk}` frames,
 * a last chunk with finish_reason "stop", the usage chunk when the request asks for it, then
 * `data: [DONE]`.
 */
export async function startModelStandIn(answer: (body: any) => StandInAnswer): Promise<ModelStandIn> {
  const port = await freePort();
  const requests: StandInRequest[] = [];
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'test-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const record: StandInRequest = { body: JSON.parse(raw), closedEarly: false };
      requests.push(record);
      const { pieces, gapMs = 20, dropAfterPieces = false } = answer(record.body);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let i = 0;
      const send = () => {
        if (res.destroyed) return;
        if (i < pieces.length) {
          res.write(chunk({ content: pieces[i++] }, null));
          timer = setTimeout(send, gapMs);
        } else if (dropAfterPieces) res.destroy();
        else res.end(`${chunk({}, 'stop')}${record.body.stream_options?.include_usage ? usageChunk(record.body, pieces) : ''}data: [DONE]\n\n`);
      };
      let timer = setTimeout(send, 10);
      res.on('close', () => {
        if (!res.writableFinished) record.closedEarly = true;
        clearTimeout(timer);
      });
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise((r) => server.close(() => r())) };
}

/**
 * The usage report OpenAI streams when asked (`stream_options.include_usage`): one more chunk
 * after the last choice, with `choices: []` and `usage`. The counts are the stand-in's own and
 * deterministic: a token per four characters of the messages, a token per piece of the reply.
 */
export function standInUsage(body: any, pieces: string[]): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  const chars = (body.messages as { content: unknown }[]).reduce((n, m) => n + String(m.content).length, 0);
  const prompt = Math.ceil(chars / 4);
  return { prompt_tokens: prompt, completion_tokens: pieces.length, total_tokens: prompt + pieces.length };
}

const usageChunk = (body: any, pieces: string[]) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'test-model', choices: [], usage: standInUsage(body, pieces) })}\n\n`;

/** The last user message of a chat-completions request. */
export const questionOf = (body: any): string => String(body.messages.at(-1).content);
