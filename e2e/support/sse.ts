import { e2eState } from './state';

export interface SseResult {
  status: number;
  headers: Headers;
  /** The parsed JSON of every `data:` frame, in order. */
  frames: any[];
  /** choices[0].delta.content of every frame, joined. */
  text: string;
  /** choices[0].finish_reason of the last frame (`stop` or `error`), null when the stream had none. */
  finishReason: string | null;
  /** ms from the request to the first frame, and to the end of the stream. */
  firstFrameMs: number | null;
  endMs: number;
  /** The body when the response was not a stream (an error). */
  json?: any;
  /** Every byte of the body, to check the exact framing. */
  raw: string;
}

/**
 * Posts to a streaming endpoint and reads the body incrementally, recording when the first frame
 * arrived. `abortAfterFrames` disconnects after that many frames (a visitor closing the tab).
 */
export async function postSse(path: string, body: unknown, token: string, opts: { baseUrl?: string; abortAfterFrames?: number } = {}): Promise<SseResult> {
  const started = Date.now();
  const controller = new AbortController();
  const res = await fetch(`${opts.baseUrl ?? e2eState().baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  const result: SseResult = { status: res.status, headers: res.headers, frames: [], text: '', finishReason: null, firstFrameMs: null, endMs: 0, raw: '' };
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    result.raw = await res.text();
    result.json = result.raw ? JSON.parse(result.raw) : undefined;
    result.endMs = Date.now() - started;
    return result;
  }
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const chunk = decoder.decode(value, { stream: true });
      result.raw += chunk;
      buffer += chunk;
      let sep: number;
      while ((sep = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, sep);
        buffer = buffer.slice(sep + 2);
        if (!frame.startsWith('data: ')) throw new Error(`not an SSE data frame: ${JSON.stringify(frame)}`);
        const json = JSON.parse(frame.slice(6));
        if (result.firstFrameMs === null) result.firstFrameMs = Date.now() - started;
        result.frames.push(json);
        result.text += json.choices[0].delta.content;
        result.finishReason = json.choices[0].finish_reason ?? null;
        if (opts.abortAfterFrames && result.frames.length >= opts.abortAfterFrames) {
          controller.abort();
          result.endMs = Date.now() - started;
          return result;
        }
      }
    }
  } catch (err) {
    if ((err as Error).name !== 'AbortError') throw err;
  }
  if (buffer.length) throw new Error(`stream ended inside a frame: ${JSON.stringify(buffer)}`);
  result.endMs = Date.now() - started;
  return result;
}
