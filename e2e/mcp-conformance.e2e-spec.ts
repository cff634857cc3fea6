import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { newWorkspace } from './support/fixtures';
import { e2eState } from './support/state';

/**
 * The official MCP conformance runner (@modelcontextprotocol/conformance under Node 22) against the
 * running MCP server: the server scenarios that apply (initialize, ping, tools-list, DNS-rebinding
 * protection) must all pass. `npm run conformance` is the same script.
 */
describe('MCP conformance runner', () => {
  const s = e2eState();

  it('passes server-initialize, ping, tools-list and dns-rebinding-protection', async () => {
    const ws = await newWorkspace(['--plan', 'growth']);
    const result = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(s.root, 'tools', 'conformance', 'run.js')], {
        env: { PATH: process.env['PATH'], HOME: process.env['HOME'], MCP_URL: s.mcpUrl, MCP_TOKEN: ws.token },
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out }));
    });
    expect({ code: result.code, summary: result.out.split('\n').filter((l) => /^(PASS|FAIL) /.test(l)) }).toEqual({
      code: 0,
      summary: [
        expect.stringMatching(/^PASS server-initialize: 1\/1 passed, 0 failed, 0 warnings$/),
        expect.stringMatching(/^PASS ping: 1\/1 passed/),
        expect.stringMatching(/^PASS tools-list: 1\/1 passed/),
        expect.stringMatching(/^PASS dns-rebinding-protection: 2\/2 passed/),
      ],
    });
  }, 300000);
});
