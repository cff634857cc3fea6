import { spawn } from 'node:child_process';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { admin } from './support/admin';
import { useBrowser } from './support/browser';
import { newWorkspace } from './support/fixtures';
import { freePort } from './support/infra';
import { e2eState } from './support/state';

/**
 * The official MCP conformance runner (@modelcontextprotocol/conformance under Node 22) against the
 * running system: the server scenarios that apply (initialize, ping, tools-list, DNS-rebinding
 * protection) against the MCP server, and the authorization server scenarios (issue 17:
 * metadata endpoint, authorization code grant) against the console, an owner allowing the
 * runner's request in Chromium. `npm run conformance` is the same script; docs/mcp.md, "MCP
 * conformance: authorization", lists every authorization scenario, and why the client ones do not
 * apply.
 */
function runConformance(env: Record<string, string>, onLine: (line: string) => void = () => undefined): Promise<{ code: number | null; out: string }> {
  const s = e2eState();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(s.root, 'tools', 'conformance', 'run.js')], {
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], ...env },
    });
    let out = '';
    let pending = '';
    child.stdout.on('data', (d) => {
      out += d;
      pending += d;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      lines.forEach(onLine);
    });
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

const summary = (out: string) => out.split('\n').filter((l) => /^(PASS|FAIL) /.test(l));

describe('MCP conformance runner', () => {
  const s = e2eState();
  const b = useBrowser();

  it('passes server-initialize, ping, tools-list and dns-rebinding-protection', async () => {
    const ws = await newWorkspace(['--plan', 'growth']);
    const result = await runConformance({ MCP_URL: s.mcpUrl, MCP_TOKEN: ws.token });
    expect({ code: result.code, summary: summary(result.out) }).toEqual({
      code: 0,
      summary: [
        expect.stringMatching(/^PASS server-initialize: 1\/1 passed, 0 failed, 0 warnings$/),
        expect.stringMatching(/^PASS ping: 1\/1 passed/),
        expect.stringMatching(/^PASS tools-list: 1\/1 passed/),
        expect.stringMatching(/^PASS dns-rebinding-protection: 2\/2 passed/),
      ],
    });
  }, 300000);

  it('passes the authorization server scenarios authorization-server-metadata-endpoint and authorization-code-grant against the console, an owner allowing in Chromium (issue 17)', async () => {
    const ws = await newWorkspace(['--plan', 'growth']);
    const person = { email: `conformance-${ws.id.slice(0, 8)}@example.com`, password: 'conformance owner password 1' };
    await admin(['user', 'create', '--workspace', ws.id, '--email', person.email, '--role', 'owner', '--password-stdin'], undefined, undefined, `${person.password}\n`);
    // The runner's client: registered through DCR with the runner's callback as its redirect URI.
    const port = await freePort();
    const reg = await fetch(`${s.consoleUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'MCP conformance runner', redirect_uris: [`http://127.0.0.1:${port}/callback`], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }),
    });
    expect(reg.status).toBe(201);
    const clientId = ((await reg.json()) as { client_id: string }).client_id;

    const page: Page = b.page();
    let approving: Promise<void> | undefined;
    const approve = async (authorizeUrl: string) => {
      await page.goto(authorizeUrl);
      await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor({ timeout: 15000 });
      await page.getByLabel('Email', { exact: true }).fill(person.email);
      await page.getByLabel('Password', { exact: true }).fill(person.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('button', { name: 'Allow', exact: true }).waitFor({ timeout: 15000 });
      await page.getByLabel('Workspace', { exact: true }).selectOption(ws.id);
      // The runner asks for no scope: the console offers all ten, ticked.
      expect(await page.getByRole('checkbox', { name: 'bots:read', exact: true }).isChecked()).toBe(true);
      await page.getByRole('button', { name: 'Allow', exact: true }).click();
      await page.waitForURL(new RegExp(`^http://127\\.0\\.0\\.1:${port}/callback`), { timeout: 15000 });
    };
    const result = await runConformance({ CONFORMANCE_AS_URL: s.consoleUrl, CONFORMANCE_CLIENT_ID: clientId, CONFORMANCE_CALLBACK_PORT: String(port), MCP_URL: s.mcpUrl }, (line) => {
      const m = /^AUTHORIZE (\S+)$/.exec(line);
      if (m && !approving) approving = approve(m[1]!);
    });
    expect(approving).toBeDefined();
    await approving;
    expect({ code: result.code, summary: summary(result.out) }).toEqual({
      code: 0,
      summary: [
        expect.stringMatching(/^PASS authorization-server-metadata-endpoint: [1-9]\d*\/\d+ passed, 0 failed, 0 warnings$/),
        expect.stringMatching(/^PASS authorization-code-grant: 1\/1 passed, 0 failed, 0 warnings$/),
      ],
    });
  }, 300000);
});
