import { randomBytes } from 'node:crypto';
import { admin, createUser } from './admin';
import { client } from './api';
import { ConsoleClient } from './console';
import { newWorkspace, TestWorkspace, uniqueName } from './fixtures';

/** The password of the people the console suites create. */
export const CONSOLE_PASSWORD = 'correct horse battery staple';

/** A workspace with an owner, an admin and a member signed in to the console, and a bot. */
export interface ConsolePeople {
  ws: TestWorkspace;
  bot: string;
  owner: ConsoleClient;
  admin: ConsoleClient;
  member: ConsoleClient;
  emails: { owner: string; admin: string; member: string };
}

/** A scale-plan workspace of this name with a token for every scope (screenshots show the name). */
export async function namedWorkspace(name: string): Promise<TestWorkspace> {
  const ws = await admin<{ id: string }>(['workspace', 'create', '--name', name, '--plan', 'scale']);
  const tok = await admin<{ id: string; token: string }>(['token', 'create', '--workspace', ws.id, '--scopes', 'all']);
  return { id: ws.id, token: tok.token, tokenId: tok.id, api: client(tok.token) };
}

/**
 * A workspace with its three people signed in and a bot. `named` gives the screenshots' fixed
 * names ("Acme Support", "Front desk"); `uniqueEmails` adds a tag to the named addresses too, for
 * suites that make more than one such workspace in one run.
 */
export async function workspaceWithPeople(named = false, { uniqueEmails = false }: { uniqueEmails?: boolean } = {}): Promise<ConsolePeople> {
  const ws = named ? await namedWorkspace('Acme Support') : await newWorkspace(['--plan', 'scale']);
  const tag = randomBytes(4).toString('hex');
  const suffix = uniqueEmails ? `.${tag}` : '';
  const emails = named
    ? { owner: `olivia.owner${suffix}@acme.example`, admin: `ada.admin${suffix}@acme.example`, member: `max.member${suffix}@acme.example` }
    : { owner: `owner-${tag}@example.com`, admin: `admin-${tag}@example.com`, member: `member-${tag}@example.com` };
  const clients: Record<string, ConsoleClient> = {};
  for (const role of ['owner', 'admin', 'member'] as const) {
    await createUser(ws.id, emails[role], role, CONSOLE_PASSWORD);
    clients[role] = new ConsoleClient();
    const signedIn = await clients[role]!.signIn(emails[role], CONSOLE_PASSWORD);
    if (signedIn.status !== 200) throw new Error(`signing in ${emails[role]} failed: ${signedIn.status} ${signedIn.text}`);
  }
  const created = await ws.api.post('/bots', { name: named ? 'Front desk' : uniqueName('Front desk'), language: 'en' });
  if (created.status !== 201) throw new Error(`creating the bot failed: ${created.status} ${created.text}`);
  return { ws, bot: created.body.data.id, owner: clients['owner']!, admin: clients['admin']!, member: clients['member']!, emails };
}
