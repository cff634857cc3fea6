'use strict';
// One held SSE stream for benchmarks that keep thousands open at once (widget-streams): a POST
// on its own connection (node:http without an agent, so no pool caps how many are open, and no
// socket is shared), read incrementally with the frame rules of sse-client.js, keeping only
// counts (thousands of streams, each a little memory in the benchmark process). Records, from the
// moment the request is written, when the response headers came and when the first frame was
// complete (the time to first byte a visitor sees); destroy() closes it early, as a visitor who
// leaves the page.
const http = require('node:http');

const now = () => Number(process.hrtime.bigint()) / 1e6;

/**
 * Opens the stream. Returns { firstFrame, done, destroy(), state }: `firstFrame` resolves to the
 * milliseconds to the first complete frame (null when the stream ended or failed before one);
 * `done` resolves (never rejects) to { status, headersMs, firstFrameMs, endMs, frames,
 * finishReason, error, destroyed } once the response ended, failed or was destroyed.
 */
function openSseStream({ host = '127.0.0.1', port, path, body, headers = {} }) {
  const payload = Buffer.from(JSON.stringify(body));
  const state = { status: 0, headersMs: null, firstFrameMs: null, endMs: null, frames: 0, finishReason: null, error: null, destroyed: false, errorBody: '' };
  let firstResolve;
  const firstFrame = new Promise((r) => (firstResolve = r));
  let doneResolve;
  const done = new Promise((r) => (doneResolve = r));
  let finished = false;
  const finish = (error) => {
    if (finished) return;
    finished = true;
    state.endMs = now() - started;
    if (error && !state.error) state.error = error;
    firstResolve(state.firstFrameMs);
    doneResolve(state);
  };
  const started = now();
  const req = http.request(
    { host, port, path, method: 'POST', agent: false, headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': payload.length, ...headers } },
    (res) => {
      state.status = res.statusCode;
      state.headersMs = now() - started;
      const isStream = String(res.headers['content-type'] || '').startsWith('text/event-stream');
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (piece) => {
        if (!isStream) {
          if (state.errorBody.length < 500) state.errorBody += piece;
          return;
        }
        buffer += piece;
        let sep;
        while ((sep = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, sep);
          buffer = buffer.slice(sep + 2);
          if (!frame.startsWith('data: ')) {
            res.destroy();
            finish(`not an SSE data frame: ${JSON.stringify(frame.slice(0, 200))}`);
            return;
          }
          if (state.firstFrameMs === null) {
            state.firstFrameMs = now() - started;
            firstResolve(state.firstFrameMs);
          }
          state.frames++;
          // Only the last frame says how the answer ended; the others need no parsing.
          if (frame.includes('"finish_reason":"')) {
            try {
              const json = JSON.parse(frame.slice(6));
              state.finishReason = json.choices[0].finish_reason ?? null;
              if (json.error) state.error = `${json.error.code}: ${json.error.message}`;
            } catch {
              finish(`a frame that is not JSON: ${JSON.stringify(frame.slice(0, 200))}`);
            }
          }
        }
      });
      res.on('end', () => finish(isStream ? (buffer.length ? 'the stream ended inside a frame' : null) : `HTTP ${res.statusCode}: ${state.errorBody.slice(0, 200)}`));
      res.on('error', (err) => finish(state.destroyed ? null : err.message));
      res.on('close', () => finish(state.destroyed ? null : 'the connection closed before the response ended'));
    },
  );
  req.on('error', (err) => finish(state.destroyed ? null : err.message));
  req.end(payload);
  return {
    firstFrame,
    done,
    state,
    destroy() {
      state.destroyed = true;
      req.destroy();
      finish(null);
    },
  };
}

module.exports = { openSseStream, now };
