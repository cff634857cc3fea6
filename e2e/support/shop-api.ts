import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * A customer's "shop API" for the actions tests (issue 34): a real HTTPS server on 127.0.0.1 (an
 * action's endpoint must be https), with a self-signed certificate made at test time by the
 * `openssl` CLI for `IP:127.0.0.1` and `DNS:localhost`. The services trust it the way an operator
 * would trust a private CA: `NODE_EXTRA_CA_CERTS=<caFile>` in their environment (read by Node at
 * start), so nothing in the code under test turns certificate checks off. The outbound policy
 * must still allow the address and port (OUTBOUND_ALLOW_CIDRS=127.0.0.1/32, OUTBOUND_ALLOWED_PORTS).
 *
 * Every request is recorded (method, path, query, headers, JSON body) before it is answered, so a
 * test can show that a call never happened. Routes:
 * - `GET /orders/<id>`: `{order_id, status: "shipped"}`;
 * - `POST /orders/<id>/cancel`: `{order_id, status: "cancelled"}`, after `delayMs` (settable at any
 *   time: the widget's status line is visible while the shop works);
 * - anything else: 404 `{error: "not_found"}`.
 */
export interface ShopRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; the raw text when it is not JSON; null when there is none. */
  body: unknown;
}

export interface ShopApi {
  port: number;
  /** https://127.0.0.1:<port> */
  origin: string;
  /** The certificate (PEM) to give as NODE_EXTRA_CA_CERTS. */
  caFile: string;
  requests: ShopRequest[];
  /** How long POST …/cancel takes to answer, in ms. */
  delayMs: number;
  close(): Promise<void>;
}

/** A self-signed certificate and key for 127.0.0.1 and localhost, valid for a day, in a new temporary folder. */
function makeCertificate(): { dir: string; cert: string; key: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-shop-'));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return { dir, cert, key };
}

/** A route of a test's own: answered when it returns something (after `delayMs`), else the routes above. */
export type ShopRoute = (method: string, url: URL) => { status: number; json: unknown; delayMs?: number; headers?: Record<string, string> } | null;

export async function startShopApi(opts: { delayMs?: number; routes?: ShopRoute } = {}): Promise<ShopApi> {
  const { dir, cert, key } = makeCertificate();
  const requests: ShopRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const shop: ShopApi = { port: 0, origin: '', caFile: cert, requests, delayMs: opts.delayMs ?? 0, close: async () => undefined };

  const server = https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, (req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'https://shop');
      const raw = Buffer.concat(parts).toString('utf8');
      let body: unknown = null;
      if (raw) {
        try {
          body = JSON.parse(raw);
        } catch {
          body = raw;
        }
      }
      requests.push({ method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body });
      const send = (status: number, json: unknown) => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      const own = opts.routes?.(req.method ?? 'GET', url);
      if (own) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (res.destroyed) return;
          res.writeHead(own.status, { 'content-type': 'application/json', ...own.headers });
          res.end(JSON.stringify(own.json));
        }, own.delayMs ?? 0);
        timers.add(timer);
        return;
      }
      const order = /^\/orders\/([A-Za-z0-9-]+)$/.exec(url.pathname);
      if (req.method === 'GET' && order) return send(200, { order_id: order[1], status: 'shipped' });
      const cancel = /^\/orders\/([A-Za-z0-9-]+)\/cancel$/.exec(url.pathname);
      if (req.method === 'POST' && cancel) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          send(200, { order_id: cancel[1], status: 'cancelled' });
        }, shop.delayMs);
        timers.add(timer);
        return;
      }
      send(404, { error: 'not_found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  shop.port = (server.address() as AddressInfo).port;
  shop.origin = `https://127.0.0.1:${shop.port}`;
  shop.close = async () => {
    for (const t of timers) clearTimeout(t);
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return shop;
}
