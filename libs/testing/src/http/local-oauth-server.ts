import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';

/*
 * A real OAuth authorization server for tests of MCP servers with OAuth (issue 34, item 3):
 * oidc-provider in a process of its own (local-oauth-server.mjs: it is an ES module only). It
 * registers clients dynamically, requires PKCE, issues opaque access tokens for one resource (the
 * MCP server's URL) with refresh tokens, and introspects them for the resource server (`active`
 * here is what the local MCP server asks). `consent()` walks an authorization URL as a browser
 * would, through the consent page's Allow (or Deny), and answers where the server sends the
 * browser back (the redirect URI with code, state and iss).
 */

export interface LocalOAuthServer {
  issuer: string;
  port: number;
  /** RFC 7662 introspection as the resource server's client: whether the token is active for the resource. */
  active(token: string): Promise<boolean>;
  /** What the server has done: registrations, token grants by type, introspections, consents. */
  stats(): Promise<{ registrations: number; grants: Record<string, number>; introspections: number; consents: number }>;
  /** Follows an authorization URL through the consent page (Allow, or Deny): the URL the browser would be sent back to. */
  consent(authorizationUrl: string, choice?: 'allow' | 'deny'): Promise<URL>;
  stop(): Promise<void>;
}

export interface LocalOAuthServerOptions {
  /** The MCP server's URL: the only resource tokens are for. */
  resource: string;
  /** Access tokens live this long (default 3600 s): short to test refresh. */
  accessTokenTtlSeconds?: number;
  /** Scopes of the resource (default `orders:read orders:write`). */
  scopes?: string[];
  /** Clients registered beforehand (an owner-given client id and secret). */
  staticClients?: Record<string, unknown>[];
  /** Serve https with these files, trusting `cert` for our own requests. */
  tls?: { keyFile: string; certFile: string; cert: string };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request, no redirects followed, trusting the server's own certificate. */
function send(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string; ca?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const make = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = make(target, { method: opts.method ?? 'GET', headers: opts.headers, agent: false, ...(opts.ca ? { ca: opts.ca } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

export async function startLocalOAuthServer(opts: LocalOAuthServerOptions): Promise<LocalOAuthServer> {
  const introspectionSecret = randomBytes(16).toString('hex');
  const child: ChildProcess = spawn(process.execPath, [path.join(__dirname, 'local-oauth-server.mjs')], {
    env: {
      ...process.env,
      AS_RESOURCE: opts.resource,
      AS_ACCESS_TTL_SECONDS: String(opts.accessTokenTtlSeconds ?? 3600),
      AS_SCOPES: (opts.scopes ?? ['orders:read', 'orders:write']).join(' '),
      AS_STATIC_CLIENTS: JSON.stringify(opts.staticClients ?? []),
      AS_INTROSPECTION_SECRET: introspectionSecret,
      ...(opts.tls ? { AS_TLS_KEY_FILE: opts.tls.keyFile, AS_TLS_CERT_FILE: opts.tls.certFile } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const { port, issuer } = await new Promise<{ port: number; issuer: string }>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the local authorization server did not start: ${stderr}`)), 15000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) {
        clearTimeout(timer);
        resolve(JSON.parse(line));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the local authorization server ended (${code}): ${stderr}`));
    });
  });
  const ca = opts.tls?.cert;

  const cookieJar = (): { take(a: Answer): void; header(): string } => {
    const cookies = new Map<string, string>();
    return {
      take(a) {
        const set = a.headers['set-cookie'];
        for (const c of Array.isArray(set) ? set : set ? [set] : []) {
          const pair = c.split(';')[0]!;
          const i = pair.indexOf('=');
          cookies.set(pair.slice(0, i), pair.slice(i + 1));
        }
      },
      header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    };
  };

  return {
    issuer,
    port,
    async active(token) {
      const res = await send(`${issuer}/token/introspection`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`mcp-resource:${introspectionSecret}`).toString('base64')}` },
        body: new URLSearchParams({ token }).toString(),
        ca,
      });
      if (res.status !== 200) return false;
      const body = JSON.parse(res.body) as { active?: boolean; aud?: string | string[] };
      const aud = Array.isArray(body.aud) ? body.aud : [body.aud];
      return body.active === true && aud.some((a) => a === opts.resource || a === `${opts.resource}/`);
    },
    async stats() {
      return JSON.parse((await send(`${issuer}/_test/stats`, { ca })).body);
    },
    async consent(authorizationUrl, choice = 'allow') {
      const jar = cookieJar();
      const step = async (url: string, method = 'GET'): Promise<string> => {
        const a = await send(url, { method, headers: { cookie: jar.header(), accept: 'text/html', ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) }, body: method === 'POST' ? '' : undefined, ca });
        jar.take(a);
        const location = a.headers['location'];
        if (a.status < 300 || a.status >= 400 || typeof location !== 'string') throw new Error(`expected a redirect from ${url}, got ${a.status}: ${a.body.slice(0, 300)}`);
        return new URL(location, url).toString();
      };
      const interaction = await step(authorizationUrl);
      const resume = await step(`${interaction}/${choice}`, 'POST');
      return new URL(await step(resume));
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    },
  };
}
