import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { createSupportAgentClient, streamChat, SupportAgentError } from '@sa/sdk';
import { newWorkspace } from './support/fixtures';
import { e2eState } from './support/state';

/** The typed SDK (libs/sdk) and its example script against the running system. */
describe('typed SDK', () => {
  const s = e2eState();

  it('the typed client and the chat stream helper work against the real API', async () => {
    const ws = await newWorkspace(['--plan', 'scale', '--messages-per-month', '100']);
    const api = createSupportAgentClient({ baseUrl: s.baseUrl, token: ws.token });
    const created = await api.POST('/bots', { body: { name: 'SDK bot', language: 'en' } });
    expect(created.response.status).toBe(201);
    const bot = created.data!.data.id;
    const listed = await api.GET('/bots');
    expect(listed.data!.data.map((b) => b.id)).toEqual([bot]);
    const conflict = await api.POST('/bots', { body: { name: 'SDK bot' } });
    expect(conflict.response.status).toBe(409);
    expect(conflict.error).toEqual(expect.objectContaining({ code: 'bot_name_taken', suggested_name: expect.any(String) }));
    const bookings = await api.GET('/bookings', { params: { query: { status: 'pending', limit: 5 } } });
    expect(bookings.data).toEqual({ data: [] });

    const chat = await streamChat({ baseUrl: s.baseUrl, token: ws.token }, { message: 'Hello there', chatbotId: bot, sessionId: 'sdk-1' });
    expect(chat.sessionId).toBe('sdk-1');
    const parts: string[] = [];
    for await (const t of chat.deltas) parts.push(t);
    expect(parts.length).toBeGreaterThanOrEqual(1);
    const stored = await api.GET('/conversations/{sessionId}', { params: { path: { sessionId: 'sdk-1' } } });
    expect(stored.data!.data[1].content).toBe(parts.join(''));

    await expect(streamChat({ baseUrl: s.baseUrl, token: 'mgpt_nope' }, { message: 'hi' })).rejects.toEqual(expect.objectContaining({ status: 401 }));
    const invalid = await streamChat({ baseUrl: s.baseUrl, token: ws.token }, { message: '' }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(SupportAgentError);
    expect((invalid as SupportAgentError).status).toBe(400);
  });

  it('the example script runs end to end', async () => {
    const ws = await newWorkspace(['--plan', 'growth']);
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(s.root, 'dist', 'libs', 'sdk', 'src', 'examples', 'quickstart.js')], {
        env: { PATH: process.env['PATH'], SA_BASE_URL: s.baseUrl, SA_TOKEN: ws.token },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^bot [0-9a-f-]{36}$/m);
    expect(out.stdout).toMatch(/^document [0-9a-f-]{36} ready$/m);
    expect(out.stdout).toMatch(/^answer: .*nine/m);
    expect(out.stdout).toMatch(/^conversation: user, assistant$/m);
    expect(out.stdout).toMatch(/^webhook signature: valid$/m);
  });
});
