import * as fs from 'node:fs';
import * as path from 'node:path';
import { request } from './support/api';
import { waitFor } from './support/apps';
import { workspaceWithPeople } from './support/console-people';
import { uniqueName } from './support/fixtures';
import { e2eState } from './support/state';
import { newWidgetSession, widgetUrl } from './support/widget';

/**
 * Issue 30: a widget session id is a bearer secret (whoever holds it reads and continues the
 * conversation), and so are invitation tokens and OAuth interaction ids. The apps' access log
 * lines named them in their paths (`/v1/conversations/<sid>`, the console's conversations and
 * handoffs). Every app's log of this run is read for them after the routes that carry them.
 */
describe('log lines name no session id (issue 30)', () => {
  const s = e2eState();

  const logsContaining = (secret: string): string[] =>
    fs
      .readdirSync(s.logDir)
      .filter((f) => fs.statSync(path.join(s.logDir, f)).isFile())
      .filter((f) => fs.readFileSync(path.join(s.logDir, f), 'utf8').includes(secret));

  it('the REST, widget and console routes that carry a session id, an invitation token or an interaction id', async () => {
    const p = await workspaceWithPeople('growth');
    const bot = await p.ws.api.post('/bots', { name: uniqueName(), language: 'en' });
    expect(bot.status).toBe(201);
    const botId = bot.body.data.id as string;
    const sid = await newWidgetSession(botId);
    const handoff = await request('POST', '', { sessionId: sid, reason: 'a person please' }, { baseUrl: widgetUrl(botId, 'handoff') });
    expect(handoff.status).toBe(200);

    const marker = `/v1/conversations/${sid}`;
    expect((await p.ws.api.get(`/conversations/${sid}`)).status).toBeLessThan(500);
    expect((await p.ws.api.get(`/conversations/${sid}/more`)).status).toBe(404);
    const base = `/api/workspaces/${p.ws.id}`;
    await waitFor(async () => (await p.owner.get(`${base}/handoffs/${sid}`)).status, (st) => st === 200, 10000, 200);
    expect((await p.owner.get(`${base}/conversations/${sid}`)).status).toBeLessThan(500);
    expect((await p.owner.post(`${base}/handoffs/${sid}/take`)).status).toBeLessThan(500);
    expect((await p.owner.post(`${base}/handoffs/${sid}/release`)).status).toBeLessThan(500);

    const invitation = 'inv_' + sid.split('').reverse().join('');
    expect((await p.owner.get(`/api/invitations/${invitation}`)).status).toBeGreaterThanOrEqual(400);
    const uid = 'uid' + sid.slice(0, 20);
    expect((await fetch(`${s.consoleUrl}/oauth/consent/${uid}`)).status).toBeLessThan(500);

    // The lines were written (the last request's is there), and none names a secret.
    await waitFor(
      async () => fs.readdirSync(s.logDir).some((f) => /\/handoffs\/[^/"]+\/release"/.test(fs.readFileSync(path.join(s.logDir, f), 'utf8'))),
      (ok) => ok,
      10000,
      200,
    );
    expect(logsContaining(marker)).toEqual([]);
    expect(logsContaining(sid)).toEqual([]);
    expect(logsContaining(invitation)).toEqual([]);
    expect(logsContaining(uid)).toEqual([]);
  });
});
