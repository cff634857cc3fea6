import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { admin, createUser } from './admin';
import { client } from './api';
import { ConsoleClient } from './console';
import { newWorkspace, TestWorkspace } from './fixtures';
import { e2eState } from './state';

export const CONSOLE_PASSWORD = 'correct horse battery staple';
export type ConsoleRole = 'owner' | 'admin' | 'member';

/** A workspace with an owner, an admin and a member, each signed in to the console's API. */
export interface ConsolePeople {
  ws: TestWorkspace;
  owner: ConsoleClient;
  admin: ConsoleClient;
  member: ConsoleClient;
  emails: Record<ConsoleRole, string>;
}

/**
 * A new workspace on `plan` (more `flags` of `admin workspace create` after it) with its three
 * people. `name` gives a fixed workspace name and the people fixed e-mail addresses (for
 * screenshots); otherwise both are unique.
 */
export async function workspaceWithPeople(plan: string, name?: string, flags: string[] = []): Promise<ConsolePeople> {
  let ws: TestWorkspace;
  if (name) {
    const created = await admin<{ id: string }>(['workspace', 'create', '--name', name, '--plan', plan, ...flags]);
    const tok = await admin<{ id: string; token: string }>(['token', 'create', '--workspace', created.id, '--scopes', 'all']);
    ws = { id: created.id, token: tok.token, tokenId: tok.id, api: client(tok.token) };
  } else {
    ws = await newWorkspace(['--plan', plan, ...flags]);
  }
  const tag = name ? null : randomBytes(4).toString('hex');
  const domain = name ? `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.example` : 'example.com';
  const emails = {
    owner: tag ? `owner-${tag}@${domain}` : `olivia.owner@${domain}`,
    admin: tag ? `admin-${tag}@${domain}` : `ada.admin@${domain}`,
    member: tag ? `member-${tag}@${domain}` : `max.member@${domain}`,
  };
  const clients: Partial<Record<ConsoleRole, ConsoleClient>> = {};
  for (const role of ['owner', 'admin', 'member'] as const) {
    await createUser(ws.id, emails[role], role, CONSOLE_PASSWORD);
    clients[role] = new ConsoleClient();
    const res = await clients[role].signIn(emails[role], CONSOLE_PASSWORD);
    if (res.status !== 200) throw new Error(`sign-in of ${emails[role]} failed: ${res.status} ${res.text}`);
  }
  return { ws, owner: clients.owner!, admin: clients.admin!, member: clients.member!, emails };
}

/** Signs in on the console's sign-in page and waits for the workspace's navigation. */
export async function signInPage(page: Page, email: string): Promise<void> {
  await page.goto(`${e2eState().consoleUrl}/sign-in`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(CONSOLE_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Console' }).waitFor({ timeout: 15000 });
}
