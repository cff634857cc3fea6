import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { newWorkspace } from './support/fixtures';
import { e2eState } from './support/state';

/**
 * The official MCP conformance runner (@modelcontextprotocol/conformance under Node 22) against the
 * running system: the server scenarios that apply (initialize, ping, tools-list, DNS-rebinding
 * protection) against the MCP server, and the authorization server scenario that passes (issue 17:
 * the metadata endpoint) against the console's authorization server. `npm run conformance` is the
 * same script; README "MCP conformance" lists every authorization scenario and why the others do
 * not apply or do not pass.
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

  it('passes the authorization server scenario authorization-server-metadata-endpoint against the console (issue 17)', async () => {
    const result = await runConformance({ CONFORMANCE_AS_URL: s.consoleUrl, MCP_URL: s.mcpUrl });
    expect({ code: result.code, summary: summary(result.out) }).toEqual({
      code: 0,
      summary: [expect.stringMatching(/^PASS authorization-server-metadata-endpoint: [1-9]\d*\/\d+ passed, 0 failed, 0 warnings$/)],
    });
  }, 300000);
});
