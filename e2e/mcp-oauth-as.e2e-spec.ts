import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { discoverAuthorizationServerMetadata, exchangeAuthorization, refreshAuthorization, registerClient, startAuthorization as sdkStart } from '@modelcontextprotocol/sdk/client/auth.js';
import { connect, NatsConnection } from 'nats';
import { createUser } from './support/admin';
import { SpawnedApp, spawnApp, waitFor } from './support/apps';
import { ConsoleClient } from './support/console';
import { newWorkspace, TestWorkspace } from './support/fixtures';
import { freePort } from './support/infra';
import { e2eState } from './support/state';

// The MCP authorization server (oidc-provider inside the console, issue 17) over raw HTTP, with no
// OAuth library in the test: metadata, DCR and its per-address limit, a Client ID Metadata Document
// served by a local server, authorization code + PKCE through the consent API, a token for the MCP
// resource only, refresh (and two concurrent refreshes), revocation, Deny, and the NATS handler
// console.connection.verify. A console of its own (low DCR limit, loopback CIMD allowed) on the
// shared system's database and NATS.

const s = e2eState();
const PASSWORD = 'correct horse battery staple';
const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');
const b64url = (b: Buffer) => b.toString('base64url');

let consoleApp: SpawnedApp;
let base: string;
let resource: string;
let ws: TestWorkspace;
let person: ConsoleClient;
let botId: string;
let otherBotId: string;
let nc: NatsConnection;
let cimdServer: http.Server;
let cimdUrl: string;
let dcrClientId: string;
const REDIRECT = 'http://127.0.0.1:9/callback';

/** A browser's cookie jar for the console's origin (oidc-provider's interaction cookies). */
class Jar {
  private readonly cookies = new Map<string, string>();
  take(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, i), pair!.slice(i + 1));
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

async function form(path: string, fields: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

async function register(meta: Record<string, unknown> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT], client_name: 'Test MCP client', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], ...meta }),
  });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

interface Started {
  jar: Jar;
  uid: string;
  verifier: string;
  state: string;
}

/** GET /oauth/authorize as a browser: redirected to the consent page /oauth/consent/<uid>. */
async function startAuthorization(clientId: string, extra: Record<string, string> = {}): Promise<Started> {
  const verifier = b64url(randomBytes(32));
  const state = b64url(randomBytes(8));
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'bots:read kb:read chat:invoke',
    code_challenge: b64url(createHash('sha256').update(verifier).digest()),
    code_challenge_method: 'S256',
    state,
    resource,
    ...extra,
  });
  const jar = new Jar();
  const res = await fetch(`${base}/oauth/authorize?${q}`, { redirect: 'manual' });
  jar.take(res);
  if (res.status !== 303) throw new Error(`authorize: ${res.status} ${await res.text()}`);
  const location = new URL(res.headers.get('location')!, base);
  const m = /^\/oauth\/consent\/([A-Za-z0-9_-]+)$/.exec(location.pathname);
  expect(m).not.toBeNull();
  return { jar, uid: m![1]!, verifier, state };
}

/**
 * The signed-in person's request to the consent API from the browser that started the
 * authorization: the session cookie and that browser's interaction cookies.
 */
const inBrowser = (started: Pick<Started, 'jar'>) => ({
  get: (path: string) => person.request('GET', path, undefined, { headers: { cookie: started.jar.header() } }),
  post: (path: string, body?: unknown) => person.request('POST', path, body, { headers: { cookie: started.jar.header() } }),
});

/** Follows redirect_to (the authorization resumes) to the client's redirect URI. */
async function resume(started: Started, redirectTo: string): Promise<URL> {
  const res = await fetch(redirectTo, { redirect: 'manual', headers: { cookie: started.jar.header() } });
  expect(res.status).toBe(303);
  return new URL(res.headers.get('location')!);
}

async function authorize(clientId: string, allow: { scopes?: string[]; bot_ids?: string[] | null } = {}) {
  const started = await startAuthorization(clientId);
  const view = await inBrowser(started).get(`/api/oauth/interactions/${started.uid}`);
  expect(view.status).toBe(200);
  const allowed = await inBrowser(started).post(`/api/oauth/interactions/${started.uid}/allow`, { workspace_id: ws.id, scopes: allow.scopes ?? ['bots:read', 'kb:read'], bot_ids: allow.bot_ids === undefined ? [botId] : allow.bot_ids });
  expect(allowed.status).toBe(200);
  const back = await resume(started, allowed.body.redirect_to);
  expect(back.searchParams.get('state')).toBe(started.state);
  expect(back.searchParams.get('iss')).toBe(base);
  const code = back.searchParams.get('code')!;
  expect(code).toBeTruthy();
  const tokens = await form('/oauth/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: started.verifier, resource });
  expect(tokens.status).toBe(200);
  return { view: view.body, tokens: tokens.body };
}

async function verify(token: string): Promise<any> {
  const body = JSON.stringify({ pattern: 'console.connection.verify', data: { data: { tokenHash: sha256(token) } }, id: randomBytes(8).toString('hex') });
  const msg = await nc.request('console.connection.verify', Buffer.from(body), { timeout: 5000 });
  const reply = JSON.parse(Buffer.from(msg.data).toString('utf8'));
  expect(reply.err ?? null).toBeNull();
  return reply.response;
}

beforeAll(async () => {
  const port = await freePort();
  const mcpPort = new URL(s.mcpUrl).port;
  base = `http://127.0.0.1:${port}`;
  resource = `http://127.0.0.1:${mcpPort}/mcp`;
  consoleApp = spawnApp(
    'console',
    {
      CONSOLE_PORT: String(port),
      CONSOLE_PUBLIC_URL: base,
      MCP_RESOURCE_URL: resource,
      OAUTH_CIMD_ALLOW_LOOPBACK: 'true',
      OAUTH_DCR_MAX_PER_ADDRESS: '6',
      CONSOLE_THROTTLE_PREFIX: `${s.rateLimitPrefix}oauth-as-${port}:`,
    },
    { log: true },
  );
  nc = await connect({ servers: s.natsUrl });
  ws = await newWorkspace(['--plan', 'scale']);
  botId = (await ws.api.post('/bots', { name: 'OAuth bot' })).body.data.id;
  otherBotId = (await ws.api.post('/bots', { name: 'Other bot' })).body.data.id;
  const email = `oauth-${randomBytes(4).toString('hex')}@example.com`;
  await createUser(ws.id, email, 'owner', PASSWORD);
  await waitFor(() => fetch(`${base}/.well-known/oauth-authorization-server`).then((r) => r.status), (st) => st === 200, 30000);
  person = new ConsoleClient(base);
  expect((await person.signIn(email, PASSWORD)).status).toBe(200);

  cimdServer = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'max-age=60');
    if (req.url === '/big.json') return res.end(JSON.stringify({ client_id: `${cimdUrl.replace('/client.json', '/big.json')}`, redirect_uris: [REDIRECT], pad: 'x'.repeat(6000) }));
    res.end(JSON.stringify({ client_id: cimdUrl, client_name: 'CIMD client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }));
  });
  await new Promise<void>((r) => cimdServer.listen(0, '127.0.0.1', r));
  cimdUrl = `http://127.0.0.1:${(cimdServer.address() as AddressInfo).port}/client.json`;
}, 90000);

afterAll(async () => {
  await consoleApp?.kill();
  await nc?.close();
  await new Promise((r) => cimdServer?.close(r));
});

describe('MCP authorization server (oidc-provider in the console)', () => {
  it('publishes RFC 8414 metadata: code + PKCE S256, none, CIMD, iss, registration, revocation', async () => {
    const res = await fetch(`${base}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const m: any = await res.json();
    expect(m).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
    expect(m.token_endpoint_auth_methods_supported).toContain('none');
    expect(m.scopes_supported).toEqual(expect.arrayContaining(['bots:read', 'bookings:write']));
  });

  it('errors before a person decided are shown on the console, never redirected to the client (issue 30)', async () => {
    // Anyone may register any https redirect URI.
    const phishing = await register({ redirect_uris: ['https://phishing.example/login'], client_name: 'Phisher' });
    expect(phishing.status).toBe(201);
    const id = phishing.body.client_id as string;
    for (const q of [
      new URLSearchParams({ client_id: id }),
      new URLSearchParams({ client_id: id, response_type: 'code', redirect_uri: 'https://phishing.example/login', scope: 'bots:read', code_challenge_method: 'S256' }),
      new URLSearchParams({ client_id: id, response_type: 'code', redirect_uri: 'https://phishing.example/login', code_challenge: b64url(randomBytes(32)), code_challenge_method: 'S256', resource: 'https://evil.example/mcp' }),
    ]) {
      const res = await fetch(`${base}/oauth/authorize?${q}`, { redirect: 'manual' });
      expect([q.toString(), res.status, res.headers.get('location')]).toEqual([q.toString(), 400, null]);
      expect(((await res.json()) as any).error).toMatch(/^invalid_/);
      // A browser gets a page of the console with the error as text.
      const page = await fetch(`${base}/oauth/authorize?${q}&state=<b>x</b>`, { redirect: 'manual', headers: { accept: 'text/html,application/xhtml+xml' } });
      expect([page.status, page.headers.get('location')]).toEqual([400, null]);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
      const html = await page.text();
      expect(html).toContain('Connection request refused');
      expect(html).toMatch(/<code>invalid_[a-z_]+<\/code>/);
      expect(html).not.toContain('phishing.example');
      expect(html).not.toContain('<b>');
    }
  });

  it('registers clients (DCR) and limits registrations per address', async () => {
    const first = await register();
    expect(first).toMatchObject({ status: 201 });
    dcrClientId = first.body.client_id;
    expect(first.body.client_id).toEqual(expect.any(String));
    expect(first.body.client_secret).toBeUndefined();
    // Asking for a client secret gets a public client instead (RFC 7591: the server may replace values).
    const secretAsked = await register({ token_endpoint_auth_method: 'client_secret_post' });
    expect(secretAsked.status).toBe(201);
    expect(secretAsked.body.token_endpoint_auth_method).toBe('none');
    expect(secretAsked.body.client_secret).toBeUndefined();
    // Redirect URIs: https, or http on loopback only (MCP authorization); never javascript: and the like.
    const plainHttp = await register({ redirect_uris: ['http://evil.example.com/cb'] });
    expect([plainHttp.status, plainHttp.body.error]).toEqual([400, 'invalid_redirect_uri']);
    const script = await register({ redirect_uris: ['javascript:alert(1)'] });
    expect([script.status, script.body.error]).toEqual([400, 'invalid_redirect_uri']);
    // A lone surrogate (text PostgreSQL cannot store) is refused as at every edge, never a 500.
    const surrogate = await register({ client_name: 'bad \ud800 name' });
    expect([surrogate.status, surrogate.body.error]).toEqual([400, 'invalid_client_metadata']);
    let last = first;
    for (let i = 0; i < 8 && last.status === 201; i++) last = await register();
    expect(last.status).toBe(429);
    // Not an RFC 7591 code (it has none for a rate limit): the MCP SDK's own, which its client maps to TooManyRequestsError.
    expect(last.body.error).toBe('too_many_requests');
    expect(last.body.error_description).toMatch(/retry in \d+ seconds/);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  let clientId: string;
  let refresh: string;
  let access: string;

  it('authorizes with PKCE through the consent API (Allow) and issues tokens for the MCP resource', async () => {
    // A Client ID Metadata Document (no registration): the client_id is its URL.
    clientId = cimdUrl;
    const { view, tokens } = await authorize(clientId);
    expect(view).toMatchObject({ client: { id: cimdUrl, name: 'CIMD client', name_verified: false, redirect_host: '127.0.0.1:9' }, resource });
    expect(view.requested_scopes).toEqual(['bots:read', 'kb:read', 'chat:invoke']);
    expect(view.workspaces).toEqual([expect.objectContaining({ id: ws.id, role: 'owner' })]);
    expect(tokens).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), expires_in: expect.any(Number), scope: 'bots:read kb:read' });
    expect(tokens.expires_in).toBeLessThanOrEqual(600);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    access = tokens.access_token;
    refresh = tokens.refresh_token;
    const v = await verify(access);
    expect(v.audience).toBe(resource);
    expect(v.token).toMatchObject({ workspaceId: ws.id, name: 'CIMD client', scopes: ['bots:read', 'kb:read'], botIds: [botId] });
    expect(v.workspace).toMatchObject({ id: ws.id });
  });

  it('answers the consent API only in the browser that started the authorization (issue 30)', async () => {
    // The attacker starts an authorization in his browser and sends the consent link to the owner.
    const attacker = await startAuthorization(clientId);
    const path = `/api/oauth/interactions/${attacker.uid}`;
    // The owner, signed in in her own browser (no interaction cookie), or with the cookies of an authorization of her own.
    const other = await startAuthorization(clientId);
    for (const [who, owner] of [
      ['no interaction cookie', { get: (p: string) => person.get(p), post: (p: string, b?: unknown) => person.post(p, b) }],
      ['another interaction\'s cookie', inBrowser(other)],
    ] as const) {
      const view = await owner.get(path);
      expect([who, view.status, view.body.code]).toEqual([who, 403, 'csrf_failed']);
      expect(view.body.message).toMatch(/another browser/);
      expect(JSON.stringify(view.body)).not.toContain('CIMD client');
      const allowed = await owner.post(`${path}/allow`, { workspace_id: ws.id, scopes: ['bots:read'], bot_ids: null });
      expect([who, allowed.status, allowed.body.code]).toEqual([who, 403, 'csrf_failed']);
      const denied = await owner.post(`${path}/deny`);
      expect([who, denied.status, denied.body.code]).toEqual([who, 403, 'csrf_failed']);
    }
    // The attacker's browser resumes: no code, the authorization asks for a consent again.
    const res = await fetch(`${base}/oauth/authorize/${attacker.uid}`, { redirect: 'manual', headers: { cookie: attacker.jar.header() } });
    expect(res.status).toBe(303);
    const where = new URL(res.headers.get('location')!, base);
    expect(where.origin).toBe(base);
    expect(where.pathname).toMatch(/^\/oauth\/consent\//);
    expect(where.searchParams.get('code')).toBeNull();
    // The browser that started it still can (its own cookies), once.
    const own = await inBrowser(other).post(`/api/oauth/interactions/${other.uid}/allow`, { workspace_id: ws.id, scopes: ['bots:read'], bot_ids: null });
    expect(own.status).toBe(200);
    expect((await resume(other, own.body.redirect_to)).searchParams.get('code')).toBeTruthy();
  });

  it('stores no token, code or id in clear', async () => {
    const { Client } = await import('pg');
    const db = new Client({ connectionString: s.databaseUrl });
    await db.connect();
    try {
      const dump = await db.query(`SELECT key_hash, payload::text AS payload FROM people.oauth_artifacts`);
      const all = dump.rows.map((r) => `${r.key_hash} ${r.payload}`).join('\n');
      expect(all).not.toContain(access);
      expect(all).not.toContain(refresh);
      expect(all).toContain(sha256(access));
    } finally {
      await db.end();
    }
  });

  it('refuses another resource and a missing PKCE', async () => {
    const q = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, scope: 'bots:read', code_challenge: b64url(randomBytes(32)), code_challenge_method: 'S256', resource: 'https://evil.example/mcp' });
    // Refused on the console, not redirected to the client (issue 30: no redirect before a person decided).
    const res = await fetch(`${base}/oauth/authorize?${q}`, { redirect: 'manual' });
    expect([res.status, res.headers.get('location')]).toEqual([400, null]);
    expect(((await res.json()) as any).error).toBe('invalid_target');
    q.delete('code_challenge');
    q.set('resource', resource);
    const noPkce = await fetch(`${base}/oauth/authorize?${q}`, { redirect: 'manual' });
    expect([noPkce.status, noPkce.headers.get('location')]).toEqual([400, null]);
    expect(((await noPkce.json()) as any).error).toBe('invalid_request');
    const wrongAtToken = await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: refresh, client_id: clientId, resource: 'https://evil.example/mcp' });
    expect(wrongAtToken.status).toBe(400);
    expect(wrongAtToken.body.error).toBe('invalid_target');
  });

  it('tolerates a trailing slash on the resource', async () => {
    const started = await startAuthorization(clientId, { resource: `${resource}/` });
    expect(started.uid).toBeTruthy();
  });

  it('rotates refresh tokens; two concurrent refreshes both succeed', async () => {
    const one = await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: refresh, client_id: clientId });
    expect(one.status).toBe(200);
    expect(one.body.refresh_token).not.toBe(refresh);
    const next = one.body.refresh_token as string;
    const [a, b] = await Promise.all([
      form('/oauth/token', { grant_type: 'refresh_token', refresh_token: next, client_id: clientId }),
      form('/oauth/token', { grant_type: 'refresh_token', refresh_token: next, client_id: clientId }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect((await verify(a.body.access_token)).token).not.toBeNull();
    expect((await verify(b.body.access_token)).token).not.toBeNull();
    refresh = a.body.refresh_token;
    access = a.body.access_token;
  });

  it('revokes (RFC 7009): the refresh token and its grant stop working', async () => {
    const rev = await form('/oauth/revoke', { token: refresh, token_type_hint: 'refresh_token', client_id: clientId });
    expect(rev.status).toBe(200);
    const again = await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: refresh, client_id: clientId });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    expect((await verify(access)).token).toBeNull();
  });

  it('Deny sends access_denied to the client', async () => {
    const started = await startAuthorization(clientId);
    const denied = await inBrowser(started).post(`/api/oauth/interactions/${started.uid}/deny`);
    expect(denied.status).toBe(200);
    const back = await resume(started, denied.body.redirect_to);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('iss')).toBe(base);
  });

  it('checks the Allow: scopes requested only, bots of the workspace, CSRF, a session', async () => {
    const started = await startAuthorization(clientId);
    const browser = inBrowser(started);
    const notRequested = await browser.post(`/api/oauth/interactions/${started.uid}/allow`, { workspace_id: ws.id, scopes: ['bookings:write'], bot_ids: null });
    expect(notRequested.status).toBe(400);
    const foreignBot = await browser.post(`/api/oauth/interactions/${started.uid}/allow`, { workspace_id: ws.id, scopes: ['bots:read'], bot_ids: ['00000000-0000-4000-8000-000000000000'] });
    expect(foreignBot.status).toBe(400);
    const noCsrf = await person.request('POST', `/api/oauth/interactions/${started.uid}/allow`, { workspace_id: ws.id, scopes: ['bots:read'], bot_ids: null }, { csrf: null, headers: { cookie: started.jar.header() } });
    expect(noCsrf.status).toBe(403);
    const anonymous = await new ConsoleClient(base).get(`/api/oauth/interactions/${started.uid}`);
    expect(anonymous.status).toBe(401);
    const all = await browser.post(`/api/oauth/interactions/${started.uid}/allow`, { workspace_id: ws.id, scopes: ['bots:read'], bot_ids: [botId, otherBotId] });
    expect(all.status).toBe(200);
  });

  it('refuses a metadata document over the size cap', async () => {
    const big = cimdUrl.replace('/client.json', '/big.json');
    const q = new URLSearchParams({ response_type: 'code', client_id: big, redirect_uri: REDIRECT, scope: 'bots:read', code_challenge: b64url(randomBytes(32)), code_challenge_method: 'S256', resource });
    const res = await fetch(`${base}/oauth/authorize?${q}`, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toBe('invalid_client');
  });

  it('a rotated refresh token used a third time is reuse: refused, and the grant is revoked', async () => {
    const { tokens } = await authorize(clientId);
    const rotated = await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    expect(rotated.status).toBe(200);
    const grace = await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    expect(grace.status).toBe(200); // once more within OAUTH_REFRESH_GRACE_SECONDS
    const reuse = await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    expect((await verify(rotated.body.access_token)).token).toBeNull();
    expect((await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token, client_id: clientId })).status).toBe(400);
  });

  it('security headers on the OAuth endpoints; the token endpoint needs no Origin nor CSRF token', async () => {
    const res = await fetch(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://elsewhere.example' }, body: 'grant_type=authorization_code&code=nope&client_id=x' });
    expect(res.status).toBe(401); // invalid_client (unknown client), not 403 csrf_failed
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(((await res.json()) as any).error).toEqual(expect.any(String));
  });

  it('a revoked connection verifies as null', async () => {
    const { tokens } = await authorize(clientId);
    expect((await verify(tokens.access_token)).token).not.toBeNull();
    const { Client } = await import('pg');
    const db = new Client({ connectionString: s.databaseUrl });
    await db.connect();
    try {
      const v = await verify(tokens.access_token);
      await db.query(`UPDATE people.oauth_connections SET revoked_at = now() WHERE id = $1`, [v.token.id]);
    } finally {
      await db.end();
    }
    expect(await verify(tokens.access_token)).toEqual({ token: null, workspace: null, audience: null });
    expect(await verify(b64url(randomBytes(32)))).toEqual({ token: null, workspace: null, audience: null });
  });

  it("works with the MCP SDK client's OAuth helpers (discovery, DCR, PKCE, exchange, refresh)", async () => {
    const metadata = await discoverAuthorizationServerMetadata(base);
    expect(metadata?.issuer).toBe(base);
    // The address' registrations are used up by the limit test: a CIMD client instead, as the SDK would take it.
    await expect(registerClient(base, { metadata, clientMetadata: { redirect_uris: [REDIRECT], client_name: 'SDK client' } })).rejects.toThrow();
    const clientInformation = { client_id: cimdUrl };
    const { authorizationUrl, codeVerifier } = await sdkStart(base, { metadata, clientInformation, redirectUrl: REDIRECT, scope: 'bots:read', state: 'sdk-state', resource: new URL(resource) });
    const jar = new Jar();
    const res = await fetch(authorizationUrl, { redirect: 'manual' });
    jar.take(res);
    const uid = /\/oauth\/consent\/([A-Za-z0-9_-]+)$/.exec(res.headers.get('location')!)![1]!;
    const allowed = await inBrowser({ jar }).post(`/api/oauth/interactions/${uid}/allow`, { workspace_id: ws.id, scopes: ['bots:read'], bot_ids: null });
    expect(allowed.status).toBe(200);
    const back = await resume({ jar, uid, verifier: codeVerifier, state: 'sdk-state' }, allowed.body.redirect_to);
    const tokens = await exchangeAuthorization(base, { metadata, clientInformation, authorizationCode: back.searchParams.get('code')!, codeVerifier, redirectUri: REDIRECT, resource: new URL(resource) });
    expect(tokens.scope).toBe('bots:read');
    expect((await verify(tokens.access_token)).audience).toBe(resource);
    const refreshed = await refreshAuthorization(base, { metadata, clientInformation, refreshToken: tokens.refresh_token!, resource: new URL(resource) });
    expect((await verify(refreshed.access_token)).token).toMatchObject({ scopes: ['bots:read'], botIds: null });
  });

  it('the DCR client authorizes too (all bots)', async () => {
    const { tokens } = await authorize(dcrClientId, { bot_ids: null });
    const v = await verify(tokens.access_token);
    expect(v.token).toMatchObject({ botIds: null, name: 'Test MCP client' });
  });
});
