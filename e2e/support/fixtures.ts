import { randomBytes } from 'node:crypto';
import { admin } from './admin';
import { client } from './api';

export interface TestWorkspace {
  id: string;
  token: string;
  tokenId: string;
  api: ReturnType<typeof client>;
}

// The random part starts with a letter: six hex digits are all decimal one time in 17, and a
// name ending in " <number>" reads as a numbered copy (the 409's suggested_name counts on from it).
export const uniqueName = (prefix = 'Bot') => `${prefix} n${randomBytes(3).toString('hex')}`;

/** A new workspace (its own tenant) with a token holding every scope, made with the admin CLI. */
export async function newWorkspace(flags: string[] = ['--plan', 'growth']): Promise<TestWorkspace> {
  const ws = await admin<{ id: string }>(['workspace', 'create', '--name', uniqueName('Workspace'), ...flags]);
  const tok = await admin<{ id: string; token: string }>(['token', 'create', '--workspace', ws.id, '--scopes', 'all']);
  return { id: ws.id, token: tok.token, tokenId: tok.id, api: client(tok.token) };
}

export async function newToken(workspaceId: string, flags: string[]): Promise<{ id: string; token: string; api: ReturnType<typeof client> }> {
  const tok = await admin<{ id: string; token: string }>(['token', 'create', '--workspace', workspaceId, ...flags]);
  return { ...tok, api: client(tok.token) };
}
