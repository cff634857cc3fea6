'use strict';
// A model stand-in for benchmarks that need many answers open at once (widget-streams): an
// OpenAI-compatible `POST /v1/chat/completions` (stream: true) in a child process of its own, so
// its work never delays the benchmark's client and its clock. Same wire format as the testing
// lib's startModelStandIn (libs/testing/src/http/model-stand-in.ts): a role chunk, content chunks,
// a last chunk with finish_reason "stop", the usage chunk when asked, `data: [DONE]`.
//
// Every answer is held: its first piece 10 ms after the request, then one more piece every
// `gapMs` (a slow model; each piece also keeps the gateway's idle timeout from ending the stream)
// until release(n), which ends the n oldest held answers (all without n). So any number of
// answers stay open for as long as the benchmark needs them.
const http = require('node:http');
const { fork } = require('node:child_process');

const chunk = (delta, finish) => `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'bench-held-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const usage = (pieces) => `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'bench-held-model', choices: [], usage: { prompt_tokens: 100, completion_tokens: pieces, total_tokens: 100 + pieces } })}\n\n`;

/** The server, run in the child process: its port from argv, commands over IPC. */
function serve(port, gapMs) {
  const held = new Set();
  let requests = 0;
  let released = 0;
  const server = http.createServer((req, res) => {
    const parts = [];
    req.on('data', (d) => parts.push(d));
    req.on('end', () => {
      requests++;
      let body = null;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      } catch {
        // answered 400 below
      }
      if (req.url.split('?')[0] !== '/v1/chat/completions' || !body || body.stream !== true) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'the benchmark stand-in answers streamed chat completions only', type: 'invalid_request_error' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: '', refusal: null }, null));
      const answer = { res, pieces: 0, includeUsage: Boolean(body.stream_options && body.stream_options.include_usage), timer: null };
      const step = () => {
        if (res.destroyed) return;
        res.write(chunk({ content: answer.pieces === 0 ? 'Hello, ' : 'still here. ' }, null));
        answer.pieces++;
        answer.timer = setTimeout(step, gapMs);
      };
      answer.timer = setTimeout(step, 10);
      held.add(answer);
      res.on('close', () => {
        clearTimeout(answer.timer);
        held.delete(answer);
      });
    });
  });
  // 5,000 answers at once: no per-server connection cap, no idle timeout on a held answer.
  server.maxConnections = Infinity;
  server.keepAliveTimeout = 60000;
  server.requestTimeout = 0;
  server.listen(port, '127.0.0.1', () => process.send({ type: 'listening' }));
  process.on('message', (m) => {
    if (m.type === 'release') {
      // The oldest first (a Set iterates in insertion order); `count` of them, or all.
      let n = m.count ?? Infinity;
      for (const a of held) {
        if (n-- <= 0) break;
        clearTimeout(a.timer);
        held.delete(a);
        a.res.end(`${chunk({ content: 'Done.' }, null)}${chunk({}, 'stop')}${a.includeUsage ? usage(a.pieces + 1) : ''}data: [DONE]\n\n`);
        released++;
      }
      process.send({ type: 'released', id: m.id, held: held.size });
    } else if (m.type === 'stats') {
      process.send({ type: 'stats', id: m.id, requests, held: held.size, released });
    } else if (m.type === 'close') {
      server.closeAllConnections();
      server.close(() => process.exit(0));
    }
  });
  process.on('disconnect', () => process.exit(0));
}

/** Starts the stand-in on `port` (a free one: infra.freePort) in a child process. */
async function startHeldModel({ port, gapMs = 5000 }) {
  const child = fork(__filename, ['serve', String(port), String(gapMs)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map();
  let seq = 0;
  child.on('message', (m) => {
    const w = waiting.get(m.id ?? m.type);
    if (w) {
      waiting.delete(m.id ?? m.type);
      w(m);
    }
  });
  const exited = new Promise((r) => child.once('exit', r));
  const ask = (type, extra = {}) =>
    new Promise((resolve, reject) => {
      const id = ++seq;
      waiting.set(id, resolve);
      child.send({ type, id, ...extra }, (err) => err && reject(err));
    });
  await new Promise((resolve, reject) => {
    waiting.set('listening', resolve);
    child.once('exit', (code) => reject(new Error(`the model stand-in exited with code ${code}`)));
  });
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    pid: child.pid,
    /** { requests, held, released } so far. */
    stats: () => ask('stats'),
    /** Ends the `count` oldest answers held now (all without a count; later ones are held again); resolves to { held } left. */
    release: (count) => ask('release', count === undefined ? {} : { count }),
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.send({ type: 'close' });
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}

if (require.main === module && process.argv[2] === 'serve') serve(Number(process.argv[3]), Number(process.argv[4]));

module.exports = { startHeldModel };
