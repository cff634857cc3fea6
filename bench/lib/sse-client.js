'use strict';
// A small streaming-POST client for benchmarks (node:http with a keep-alive agent, so the
// client adds as little as possible): reads the body incrementally, splits `data: <json>\n\n`
// frames as they arrive and records, from the moment the request is written, when the response
// headers came, when the first frame was complete (the time to first byte that matters to a
// chat visitor) and when the stream ended. Same frame rules as e2e/support/sse.ts.
const http = require('node:http');

const now = () => Number(process.hrtime.bigint()) / 1e6;

class SseClient {
  /** `baseUrl` like http://127.0.0.1:3000; `sockets` the keep-alive connections to hold. */
  constructor(baseUrl, { sockets = 8 } = {}) {
    const u = new URL(baseUrl);
    this.host = u.hostname;
    this.port = Number(u.port || 80);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
  }

  /**
   * POSTs `body` (JSON) to `path` and reads the answer. Resolves to
   * { status, headers, headersMs, firstFrameMs, endMs, frames, text, finishReason, json?, raw }
   * (finishReason: the last frame's choices[0].finish_reason, `stop` for a complete answer); rejects only
   * on a network error or a malformed stream.
   */
  post(path, body, headers = {}) {
    const payload = Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const started = now();
      const req = http.request(
        {
          host: this.host,
          port: this.port,
          path,
          method: 'POST',
          agent: this.agent,
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': payload.length, ...headers },
        },
        (res) => {
          const out = { status: res.statusCode, headers: res.headers, headersMs: now() - started, firstFrameMs: null, endMs: 0, frames: [], text: '', finishReason: null, raw: '' };
          const isStream = String(res.headers['content-type'] || '').startsWith('text/event-stream');
          res.setEncoding('utf8');
          let buffer = '';
          res.on('data', (chunk) => {
            out.raw += chunk;
            if (!isStream) return;
            buffer += chunk;
            let sep;
            while ((sep = buffer.indexOf('\n\n')) >= 0) {
              const frame = buffer.slice(0, sep);
              buffer = buffer.slice(sep + 2);
              if (!frame.startsWith('data: ')) {
                res.destroy();
                reject(new Error(`not an SSE data frame: ${JSON.stringify(frame)}`));
                return;
              }
              if (out.firstFrameMs === null) out.firstFrameMs = now() - started;
              const json = JSON.parse(frame.slice(6));
              out.frames.push(json);
              out.text += json.choices[0].delta.content;
              out.finishReason = json.choices[0].finish_reason ?? null;
            }
          });
          res.on('end', () => {
            out.endMs = now() - started;
            if (!isStream) {
              try {
                out.json = out.raw ? JSON.parse(out.raw) : undefined;
              } catch {
                // not JSON: the caller reports status and raw
              }
            } else if (buffer.length) {
              reject(new Error(`stream ended inside a frame: ${JSON.stringify(buffer)}`));
              return;
            }
            resolve(out);
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  close() {
    this.agent.destroy();
  }
}

module.exports = { SseClient };
