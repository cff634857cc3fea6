import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import type { Locator, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { OAuthClientProvider, refreshAuthorization, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { waitFor } from './support/apps';
import { expectNoSeriousAxeViolations, useBrowser } from './support/browser';
import { CONSOLE_APPS, ConsoleSystem, startConsoleSystem } from './support/console-system';
import { freePort } from './support/infra';
import { errorOf } from './support/mcp';

/**
 * MCP OAuth (issue 17) end to end: the OFFICIAL MCP SDK client's OAuth support
 * (StreamableHTTPClientTransport with an OAuthClientProvider, `auth()`, `finishAuth`) against the
 * real running system (every app, the MCP server and the console with its authorization server),
 * a person approving in headless Chromium on the console's consent page.
 *
 * Registration both ways: a Client ID Metadata Document served by a local HTTP server (the console
 * runs with OAUTH_CIMD_ALLOW_LOOPBACK=true) and Dynamic Client Registration. SDK 1.32 only takes a
 * `clientMetadataUrl` that is https (`isHttpsUrl`), so the CIMD client hands the SDK its URL as
 * its client information, which is exactly what `auth()` does with an https metadata URL (the
 * client_id *is* the URL, nothing is registered): the authorization server then fetches the
 * document from the local server.
 */
const OWNER = { email: 'olga.oauth@example.com', password: 'owner password for the oauth suite', name: 'Olga OAuth' };
const KEEP = ['bots:read', 'kb:read'];
const ALL_SCOPES = ['bots:read', 'bots:write', 'kb:read', 'kb:write', 'chat:invoke', 'conversations:read', 'leads:read', 'analytics:read', 'bookings:read', 'bookings:write'];
/** The scopes of the MCP tools: the 401's scope hint (no tool needs bots:write). */
const TOOL_SCOPES = ALL_SCOPES.filter((s) => s !== 'bots:write');

/** An OAuthClientProvider that keeps everything in memory and hands the authorization URL to the test. */
class TestProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  lastState = '';
  authUrl: URL | undefined;
  saves = 0;
  constructor(
    private readonly redirect: string,
    private readonly metadata: OAuthClientMetadata,
    info?: OAuthClientInformationMixed,
  ) {
    this.info = info;
  }
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata() {
    return this.metadata;
  }
  state() {
    return (this.lastState = randomBytes(16).toString('base64url'));
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
    this.saves++;
  }
  redirectToAuthorization(url: URL) {
    this.authUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** A local HTTP server: the client's redirect URI (…/callback) and its Client ID Metadata Document (…/client.json). */
interface LocalClientSite {
  port: number;
  origin: string;
  cimdFetches: number;
  document: Record<string, unknown>;
  nextCallback(): Promise<URL>;
  close(): Promise<void>;
}

async function startLocalClientSite(): Promise<LocalClientSite> {
  let waiting: ((u: URL) => void)[] = [];
  const site: LocalClientSite = {
    port: 0,
    origin: '',
    cimdFetches: 0,
    document: {},
    nextCallback: () => new Promise<URL>((resolve) => waiting.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', site.origin);
    if (url.pathname === '/client.json') {
      site.cimdFetches++;
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
      res.end(JSON.stringify(site.document));
      return;
    }
    if (url.pathname === '/callback') {
      const resolvers = waiting;
      waiting = [];
      for (const r of resolvers) r(url);
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Connected</title><p>You can close this window.</p>');
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  site.port = (server.address() as AddressInfo).port;
  site.origin = `http://127.0.0.1:${site.port}`;
  return site;
}

describe('MCP OAuth: the official SDK client connects through the console (issue 17)', () => {
  const b = useBrowser();
  let sys: ConsoleSystem;
  let site: LocalClientSite;
  let mcpUrl: string;
  let otherMcpUrl: string;
  let ws: { id: string; name: string };
  let botX: string;
  let botY: string;
  let cliToken: string;
  const requests: string[] = [];
  const clients: Client[] = [];

  const url = (p: string) => `${sys.consoleUrl}${p}`;
  const redirectUri = () => `${site.origin}/callback`;
  const cimdUrl = () => `${site.origin}/client.json`;

  /** The SDK's fetch, recorded (method and URL) so the test can see what discovery did. */
  const recordingFetch: typeof fetch = (input, init) => {
    const u = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    requests.push(`${init?.method ?? 'GET'} ${u}`);
    return fetch(input, init);
  };

  const api = (method: string, path: string, token: string, body?: unknown) =>
    fetch(`${sys.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  const rawMcp = (token: string | null, target = mcpUrl) =>
    fetch(target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });

  /** A connected SDK client whose transport authenticates with the provider (its saved tokens). */
  async function connect(provider: TestProvider): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider, fetch: recordingFetch });
    const client = new Client({ name: 'e2e-oauth', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;

  async function signIn(page: Page): Promise<void> {
    await page.getByLabel('Email', { exact: true }).fill(OWNER.email);
    await page.getByLabel('Password', { exact: true }).fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  /** Ticks or unticks a checkbox as a person does, by clicking its label (react-aria hides the input). */
  async function setBox(box: Locator, on: boolean): Promise<void> {
    if ((await box.isChecked()) === on) return;
    const label = box.page().locator('label').filter({ has: box });
    if (await label.count()) await label.first().click();
    else await box.click({ force: true });
    await waitFor(() => box.isChecked(), (v) => v === on, 3000, 50);
  }

  interface Consent {
    action: 'Allow' | 'Deny';
    /** Run axe on the consent page. */
    photograph?: boolean;
  }

  /**
   * The SDK client connects without a token: the MCP server answers 401, the SDK discovers, registers
   * (or uses its CIMD URL) and calls redirectToAuthorization; the URL is opened in Chromium, the owner
   * signs in and decides on the consent page. Returns the redirect the browser was sent to.
   */
  async function authorize(provider: TestProvider, consent: Consent): Promise<{ callback: URL; transport: StreamableHTTPClientTransport; page: Page }> {
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider, fetch: recordingFetch });
    const client = new Client({ name: 'e2e-oauth', version: '1.0.0' });
    await expect(client.connect(transport)).rejects.toThrow(UnauthorizedError);
    expect(provider.authUrl).toBeDefined();
    const auth = provider.authUrl!;
    expect(auth.origin).toBe(sys.consoleUrl);
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    expect(auth.searchParams.get('resource')).toBe(mcpUrl);

    const page = await (await b.newContext()).newPage();
    const callback = site.nextCallback();
    await page.goto(auth.href);
    // The consent page (a single-page app) sends a person who is not signed in to /sign-in?next=….
    const allowButton = page.getByRole('button', { name: 'Allow', exact: true });
    const signInButton = page.getByRole('button', { name: 'Sign in', exact: true });
    await allowButton.or(signInButton).first().waitFor({ timeout: 15000 }).catch(async (e: Error) => {
      throw new Error(`${e.message}\nthe browser is at ${page.url()}: ${(await page.evaluate('document.body.innerText').catch(() => '')) as string}`);
    });
    if (await signInButton.isVisible()) {
      expect(page.url()).toContain('/sign-in?next=');
      await signIn(page);
    }
    await page.waitForURL(/\/oauth\/consent\//, { timeout: 15000 });
    await page.getByRole('button', { name: 'Allow', exact: true }).waitFor({ timeout: 15000 }).catch(async (e: Error) => {
      throw new Error(`${e.message}\nthe consent page at ${page.url()} says: ${(await page.evaluate('document.body.innerText').catch(() => '')) as string}`);
    });

    if (consent.action === 'Allow') {
      // The workspace (the owner has one; a select is used when there are several).
      const wsSelect = page.getByLabel('Workspace', { exact: true });
      await wsSelect.selectOption(ws.id);
      // Keep bots:read and kb:read (every requested scope starts checked), untick the other eight.
      for (const scope of ALL_SCOPES) await setBox(page.getByRole('checkbox', { name: scope, exact: true }), KEEP.includes(scope));
      // Chosen bots: only Helper X.
      const chosen = page.getByRole('radio', { name: 'Chosen bots', exact: true });
      await page.locator('label').filter({ has: chosen }).first().click();
      await waitFor(() => chosen.isChecked(), (v) => v, 3000, 50);
      await setBox(page.getByRole('checkbox', { name: 'Helper X', exact: true }), true);
      expect(await page.getByRole('checkbox', { name: 'Helper Y', exact: true }).isChecked()).toBe(false);
      if (consent.photograph) {
        await page.waitForLoadState('networkidle');
        // The client's self-asserted name is marked as unverified, and its redirect host is shown.
        const text = await page.evaluate('document.body.innerText') as string;
        expect(text).toMatch(/unverified/i);
        expect(text).toContain('127.0.0.1');
        await expectNoSeriousAxeViolations(page, `the consent page (${page.url()})`);
        // (The consent screenshot in docs/mcp.md is taken by e2e/console.e2e-spec.ts.)
        expect(b.cspViolations()).toEqual([]);
      }
    }
    await page.getByRole('button', { name: consent.action, exact: true }).click();
    const got = await Promise.race([callback, new Promise<URL>((_, reject) => setTimeout(() => reject(new Error(`no redirect to ${redirectUri()} (page at ${page.url()})`)), 15000))]);
    expect(got.searchParams.get('state')).toBe(provider.lastState);
    // RFC 9207: the issuer in the authorization response.
    expect(got.searchParams.get('iss')).toBe(sys.consoleUrl);
    return { callback: got, transport, page };
  }

  beforeAll(async () => {
    site = await startLocalClientSite();
    const mcpPort = await freePort();
    const otherPort = await freePort();
    mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
    otherMcpUrl = `http://127.0.0.1:${otherPort}/mcp`;
    sys = await startConsoleSystem(
      { MCP_PORT: String(mcpPort), MCP_RESOURCE_URL: mcpUrl, OAUTH_CIMD_ALLOW_LOOPBACK: 'true' },
      { apps: [...CONSOLE_APPS, 'mcp'], allowPorts: [site.port] },
    );
    // A second MCP server that is another resource (its own MCP_RESOURCE_URL): tokens for the first are not for it.
    sys.mini.start('mcp', { MCP_PORT: String(otherPort), MCP_RESOURCE_URL: otherMcpUrl }, 'mcp-other');
    site.document = {
      client_id: cimdUrl(),
      client_name: 'Claude (test double)',
      client_uri: site.origin,
      redirect_uris: [redirectUri()],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
    ws = await sys.admin<{ id: string; name: string }>(['workspace', 'create', '--name', 'OAuth Co', '--plan', 'scale']);
    await sys.admin(['user', 'create', '--workspace', ws.id, '--email', OWNER.email, '--role', 'owner', '--password-stdin', '--name', OWNER.name], `${OWNER.password}\n`);
    cliToken = (await sys.admin<{ token: string }>(['token', 'create', '--workspace', ws.id, '--scopes', 'all', '--name', 'CLI setup'])).token;
    const made = async (name: string) => ((await (await waitFor(() => api('POST', '/bots', cliToken, { name, language: 'en' }), (r) => r.status === 201, 20000)).json()) as any).data.id as string;
    botX = await made('Helper X');
    botY = await made('Helper Y');
    await waitFor(() => rawMcp(cliToken).then((r) => r.status), (st) => st === 200, 30000, 250);
    await waitFor(() => rawMcp(cliToken, otherMcpUrl).then((r) => r.status), (st) => st === 200, 30000, 250);
  }, 240000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await sys?.stop();
    await site?.close();
  });

  it('discovery: 401 with resource_metadata, protected resource metadata at both well-known URLs, authorization server metadata', async () => {
    const res = await rawMcp(null);
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    const origin = new URL(mcpUrl).origin;
    expect(challenge).toMatch(/^Bearer /);
    const prmUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(prmUrl).toBeDefined();
    // The scopes to ask for (MCP authorization 2025-11-25, scope selection): those of the tools.
    expect(/scope="([^"]+)"/.exec(challenge)?.[1]).toBe(TOOL_SCOPES.join(' '));
    // The body speaks of both ways in, not only of API tokens.
    const body = (await res.json()) as any;
    expect(body.code).toBe('unauthorized');
    expect(body.message).toMatch(/OAuth access token/);
    for (const u of [prmUrl!, `${origin}/.well-known/oauth-protected-resource`, `${origin}/.well-known/oauth-protected-resource/mcp`]) {
      const prm = await fetch(u);
      expect([u, prm.status]).toEqual([u, 200]);
      const body = (await prm.json()) as any;
      expect(body).toEqual(expect.objectContaining({ resource: mcpUrl, authorization_servers: [sys.consoleUrl], bearer_methods_supported: ['header'] }));
      expect(body.scopes_supported).toEqual(expect.arrayContaining(['bots:read', 'kb:read', 'bookings:write']));
    }
    const asm = (await (await fetch(url('/.well-known/oauth-authorization-server'))).json()) as any;
    expect(asm).toEqual(
      expect.objectContaining({
        issuer: sys.consoleUrl,
        client_id_metadata_document_supported: true,
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
        response_types_supported: ['code'],
      }),
    );
    expect(asm.token_endpoint_auth_methods_supported).toContain('none');
    expect(typeof asm.registration_endpoint).toBe('string');
    expect(typeof asm.revocation_endpoint).toBe('string');
  });

  describe('a client registered through a Client ID Metadata Document', () => {
    let provider: TestProvider;
    let client: Client;

    it('SDK: 401 → discovery → authorization in the browser (sign in, workspace, two scopes, one bot, Allow) → token exchange', async () => {
      provider = new TestProvider(redirectUri(), { client_name: 'Claude (test double)', redirect_uris: [redirectUri()], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }, { client_id: cimdUrl() });
      requests.length = 0;
      const { callback, transport } = await authorize(provider, { action: 'Allow', photograph: true });
      // The SDK discovered from the 401: protected resource metadata, then the authorization server's.
      expect(requests.some((r) => r.includes('/.well-known/oauth-protected-resource'))).toBe(true);
      expect(requests.some((r) => r.startsWith(`GET ${sys.consoleUrl}/.well-known/`))).toBe(true);
      expect(requests.some((r) => r.includes('/oauth/register'))).toBe(false);
      expect(site.cimdFetches).toBeGreaterThan(0);
      expect(provider.authUrl!.searchParams.get('client_id')).toBe(cimdUrl());
      // The SDK asked for the 401's scope hint, not for every scope of the metadata.
      expect(provider.authUrl!.searchParams.get('scope')).toBe(TOOL_SCOPES.join(' '));

      const code = callback.searchParams.get('code');
      expect(code).toBeTruthy();
      await transport.finishAuth(code!);
      expect(provider.saved?.access_token).toBeTruthy();
      expect(provider.saved?.refresh_token).toBeTruthy();
      expect(provider.saved?.token_type.toLowerCase()).toBe('bearer');
      expect(provider.saved?.expires_in).toBeGreaterThan(0);
      expect(provider.saved?.expires_in).toBeLessThanOrEqual(600);
      expect(provider.saved!.access_token).not.toMatch(/^mgpt_/);
      client = await connect(provider);
    });

    it('tools/list shows only the tools of the chosen scopes', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['list_bots', 'list_knowledge']);
      // A tool outside the chosen scopes: the step-up challenge (403, WWW-Authenticate error="insufficient_scope").
      // Sent raw: the SDK client would start a new authorization for the larger scope.
      const res = await fetch(mcpUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${provider.saved!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask_bot', arguments: { message: 'hi', chatbotId: botX } } }),
      });
      expect(res.status).toBe(403);
      expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
      expect(res.headers.get('www-authenticate')).toContain('chat:invoke');
    });

    it('a tool call is limited to the chosen bot; another bot is refused', async () => {
      expect(errorOf(await call(client, 'list_knowledge', { chatbotId: botX }))).toBeUndefined();
      expect(errorOf(await call(client, 'list_knowledge', { chatbotId: botY }))?.code).toBe('bot_access_denied');
      const bots = await call(client, 'list_bots');
      expect(errorOf(bots)).toBeUndefined();
      const ids = ((bots.structuredContent as any)?.data ?? []).map((x: any) => x.id);
      expect(ids).not.toContain(botY);
    });

    it('the REST API keeps refusing OAuth access tokens (it takes only mgpt_ tokens)', async () => {
      expect((await api('GET', '/bots', provider.saved!.access_token)).status).toBe(401);
    });

    it('a refresh through the SDK gives a new access token that works; the old refresh token stays usable within the grace window', async () => {
      const before = provider.saved!;
      const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
      expect(await auth(provider, { serverUrl: mcpUrl, fetchFn: recordingFetch })).toBe('AUTHORIZED');
      expect(provider.saved!.access_token).not.toBe(before.access_token);
      expect(provider.saved!.refresh_token).toBeTruthy();
      const again = await connect(provider);
      expect((await again.listTools()).tools.map((t) => t.name).sort()).toEqual(['list_bots', 'list_knowledge']);
    });

    it('two concurrent refreshes with the same refresh token both succeed, and both new access tokens work', async () => {
      const asm = (await (await fetch(url('/.well-known/oauth-authorization-server'))).json()) as any;
      const refreshToken = provider.saved!.refresh_token!;
      const [a, c] = await Promise.all(
        [0, 1].map(() => refreshAuthorization(sys.consoleUrl, { metadata: asm, clientInformation: { client_id: cimdUrl() }, refreshToken, resource: new URL(mcpUrl) })),
      );
      expect(a.access_token).not.toBe(c.access_token);
      for (const t of [a, c]) expect((await rawMcp(t.access_token)).status).toBe(200);
      provider.saveTokens({ ...c });
    });

    it('a token for another resource is refused: the authorization server will not issue one, another MCP server refuses ours', async () => {
      // Our access token presented to another protected resource (its own MCP_RESOURCE_URL).
      const other = await rawMcp(provider.saved!.access_token, otherMcpUrl);
      expect(other.status).toBe(401);
      expect(other.headers.get('www-authenticate')).toMatch(/^Bearer /);
      // A refresh asking for another resource.
      const asm = (await (await fetch(url('/.well-known/oauth-authorization-server'))).json()) as any;
      await expect(
        refreshAuthorization(sys.consoleUrl, { metadata: asm, clientInformation: { client_id: cimdUrl() }, refreshToken: provider.saved!.refresh_token!, resource: new URL(otherMcpUrl) }),
      ).rejects.toThrow();
      // An authorization request for another resource is refused before any consent.
      const bad = new URL(provider.authUrl!.href);
      bad.searchParams.set('resource', otherMcpUrl);
      const res = await fetch(bad, { redirect: 'manual' });
      const where = res.headers.get('location');
      const refused = where ? new URL(where, sys.consoleUrl).searchParams.get('error') : ((await res.json().catch(() => ({}))) as any).error;
      expect(refused).toMatch(/invalid_target|invalid_request/);
    });

    it('workspace locked → 402 api_locked; restored → the same connection works again', async () => {
      const token = provider.saved!.access_token;
      await sys.admin(['workspace', 'update', '--id', ws.id, '--status', 'canceled']);
      try {
        const locked = await waitFor(() => rawMcp(token), (r) => r.status === 402, 10000, 100);
        expect(((await locked.json()) as any).code).toBe('api_locked');
      } finally {
        await sys.admin(['workspace', 'update', '--id', ws.id, '--status', 'active']);
      }
      await waitFor(() => rawMcp(token).then((r) => r.status), (st) => st === 200, 10000, 100);
      const again = await connect(provider);
      expect(errorOf(await call(again, 'list_knowledge', { chatbotId: botX }))).toBeUndefined();
    });

    it('the Connections page lists it; "Revoke" → the MCP server answers 401 at once', async () => {
      const page = b.page();
      await page.goto(url('/sign-in'));
      await signIn(page);
      await page.getByRole('link', { name: 'Connections' }).click();
      await page.waitForURL(new RegExp(`/w/${ws.id}/connections$`));
      const row = page.getByRole('row').filter({ hasText: 'Claude (test double)' });
      await row.first().waitFor();
      const rowText = await row.first().innerText();
      expect(rowText).toMatch(new RegExp(`${OWNER.name}|${OWNER.email}`));
      expect(rowText).toMatch(/unverified/i);
      expect(rowText).toContain('bots:read');
      expect(rowText).toContain('kb:read');
      expect(rowText).not.toContain('bookings:write');
      expect(rowText).toContain('Helper X');
      const token = provider.saved!.access_token;
      expect((await rawMcp(token)).status).toBe(200);
      await row.getByRole('button', { name: 'Revoke' }).click();
      const confirm = page.getByRole('alertdialog').or(page.getByRole('dialog'));
      await confirm.first().waitFor();
      const revoked = page.waitForResponse((r) => r.request().method() === 'POST' && /\/connections\/[^/]+\/revoke$/.test(r.url()));
      await confirm.first().getByRole('button', { name: /revoke/i }).click();
      expect((await revoked).status()).toBe(200);
      const res = await waitFor(() => rawMcp(token), (r) => r.status === 401, 2000, 50);
      expect(res.headers.get('www-authenticate')).toMatch(/resource_metadata="/);
      // The refresh token died with the connection.
      const asm = (await (await fetch(url('/.well-known/oauth-authorization-server'))).json()) as any;
      await expect(refreshAuthorization(sys.consoleUrl, { metadata: asm, clientInformation: { client_id: cimdUrl() }, refreshToken: provider.saved!.refresh_token!, resource: new URL(mcpUrl) })).rejects.toThrow();
    });
  });

  describe('a client registered through Dynamic Client Registration', () => {
    it('SDK registers (RFC 7591), the owner allows, the connection works', async () => {
      const provider = new TestProvider(redirectUri(), {
        client_name: 'ChatGPT (test double)',
        redirect_uris: [redirectUri()],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      });
      requests.length = 0;
      const { callback, transport } = await authorize(provider, { action: 'Allow' });
      expect(requests.some((r) => r.startsWith('POST ') && r.includes('/oauth/register'))).toBe(true);
      expect(provider.info?.client_id).toBeTruthy();
      expect(provider.info!.client_id).not.toBe(cimdUrl());
      await transport.finishAuth(callback.searchParams.get('code')!);
      const client = await connect(provider);
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['list_bots', 'list_knowledge']);
      expect(errorOf(await call(client, 'list_knowledge', { chatbotId: botX }))).toBeUndefined();
      expect(errorOf(await call(client, 'list_knowledge', { chatbotId: botY }))?.code).toBe('bot_access_denied');
      // The code is single-use, and a replay revokes what it gave (RFC 6749 4.1.2).
      const token = provider.saved!.access_token;
      await expect(transport.finishAuth(callback.searchParams.get('code')!)).rejects.toThrow(/invalid_grant|grant request is invalid/);
      await waitFor(() => rawMcp(token).then((r) => r.status), (st) => st === 401, 2000, 50);
    });

    it('"Deny" sends the client access_denied, and no token can be had', async () => {
      const provider = new TestProvider(redirectUri(), {
        client_name: 'Denied client',
        redirect_uris: [redirectUri()],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      });
      const { callback } = await authorize(provider, { action: 'Deny' });
      expect(callback.searchParams.get('error')).toBe('access_denied');
      expect(callback.searchParams.get('code')).toBeNull();
    });
  });

  describe('the consent is bound to the browser that started the authorization (issue 30)', () => {
    it('a consent link opened in another browser is refused there; the attacker gets no code that works; the owner sees why', async () => {
      // The attacker registers a client named "Claude" and starts the authorization in his own browser.
      const attacker = new TestProvider(redirectUri(), {
        client_name: 'Claude',
        redirect_uris: [redirectUri()],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      });
      const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: attacker, fetch: recordingFetch });
      await expect(new Client({ name: 'attacker', version: '1.0.0' }).connect(transport)).rejects.toThrow(UnauthorizedError);
      const attackerPage = await (await b.newContext()).newPage();
      await attackerPage.goto(attacker.authUrl!.href);
      await attackerPage.waitForURL(/\/sign-in\?next=/, { timeout: 15000 });
      const consentPath = new URL(attackerPage.url()).searchParams.get('next')!;
      const uid = /^\/oauth\/consent\/([A-Za-z0-9_-]+)$/.exec(consentPath)?.[1];
      expect(uid).toBeDefined();

      // The owner, signed in in her own browser, opens the link he sent her.
      const victim = b.page();
      await victim.goto(url('/sign-in'));
      await signIn(victim);
      await victim.waitForURL((u) => !u.pathname.startsWith('/sign-in'), { timeout: 15000 });
      await victim.goto(url(consentPath));
      const allow = victim.getByRole('button', { name: 'Allow', exact: true });
      const refusal = victim.getByText('This request was started in another browser.');
      await allow.or(refusal).first().waitFor({ timeout: 15000 });
      if (await allow.isVisible()) {
        // What the consent page offered before the fix: she clicks Allow.
        await allow.click();
        await victim.waitForURL(/\/oauth\/authorize\//, { timeout: 15000 });
      }

      // While the request still waits, the consent API refuses her browser's Allow too (403, not a grant).
      if (!(await allow.isVisible().catch(() => false))) {
        const session = (await (await victim.context().request.get(url('/api/session'))).json()) as any;
        const forced = await victim.context().request.post(url(`/api/oauth/interactions/${uid}/allow`), {
          headers: { origin: sys.consoleUrl, 'x-csrf-token': session.csrf_token },
          data: { workspace_id: ws.id, scopes: ['leads:read'], bot_ids: null },
        });
        expect(forced.status()).toBe(403);
        expect(((await forced.json()) as any).code).toBe('csrf_failed');
      }

      // The attacker's browser resumes the authorization.
      const callback = site.nextCallback();
      await attackerPage.goto(url(`/oauth/authorize/${uid}`));
      const got = await Promise.race([callback, new Promise<null>((resolve) => setTimeout(() => resolve(null), 3000))]);
      const code = got?.searchParams.get('code');
      if (code) {
        await transport.finishAuth(code);
        const stolen = await connect(attacker);
        const leads = await call(stolen, 'list_leads');
        throw new Error(`the attacker got a code and a token for the owner's workspace: list_leads answered ${JSON.stringify(leads.structuredContent ?? leads.content).slice(0, 200)}`);
      }
      expect(got).toBeNull();
      // His browser is asked for a consent again (it would have to be his own, in his own workspace).
      expect(attackerPage.url()).toMatch(/\/(sign-in|oauth\/consent\/)/);

      // The owner saw a clear refusal and had nothing to click.
      await expect(refusal.isVisible()).resolves.toBe(true);
      await expect(allow.count()).resolves.toBe(0);
      const text = (await victim.evaluate('document.body.innerText')) as string;
      expect(text).toMatch(/someone may have sent you this link/);
      await expectNoSeriousAxeViolations(victim, 'the consent page opened in another browser');
    });
  });
});
