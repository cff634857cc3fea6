import http from 'node:http';
import { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body as received. */
  rawBody: Buffer;
  body: any;
  /** When the request arrived (ms since epoch). */
  at: number;
}

/** How the receiver answers a path: a status, after an optional delay. */
export interface Behaviour {
  status: number;
  delayMs?: number;
  headers?: Record<string, string>;
}

export interface WebhookReceiver {
  port: number;
  url(path: string): string;
  received: ReceivedWebhook[];
  on(path: string): ReceivedWebhook[];
  /** Sets the answer of every path starting with `prefix` (default 200 at once). */
  behave(prefix: string, behaviour: Behaviour): void;
  stop(): Promise<void>;
}

/** A local HTTP endpoint that records every webhook request with its raw body. */
export async function startWebhookReceiver(port = 0): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const behaviours = new Map<string, Behaviour>();
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      let body: unknown = null;
      try {
        body = JSON.parse(rawBody.toString('utf8'));
      } catch {
        body = null;
      }
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, rawBody, body, at: Date.now() });
      const match = [...behaviours.entries()].filter(([p]) => path.startsWith(p)).sort((a, b) => b[0].length - a[0].length)[0];
      const b: Behaviour = match ? match[1] : { status: 200 };
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(b.status, { 'content-type': 'text/plain', ...(b.headers ?? {}) });
        res.end('ok');
      };
      if (b.delayMs) setTimeout(answer, b.delayMs).unref();
      else answer();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actual = (server.address() as AddressInfo).port;
  return {
    port: actual,
    url: (path) => `http://127.0.0.1:${actual}${path}`,
    received,
    on: (path) => received.filter((r) => r.path === path),
    behave: (prefix, behaviour) => void behaviours.set(prefix, behaviour),
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
