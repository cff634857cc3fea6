import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { e2eState } from './state';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real admin CLI (compiled) against the e2e database and NATS (bot ids and e-mails are
 * asked of the running services), with the system's outbound policy (webhook URLs).
 */
export function runAdmin(args: string[], databaseUrl?: string, natsUrl?: string, stdin?: string, env: Record<string, string> = {}): Promise<CliResult> {
  const s = e2eState();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(s.root, 'dist', 'tools', 'admin', 'main.js'), ...args], {
      env: {
        PATH: process.env['PATH'],
        ...Object.fromEntries(Object.entries(s.env).filter(([k]) => k.startsWith('OUTBOUND_') || k.startsWith('WEBHOOK_'))),
        DATABASE_URL: databaseUrl ?? s.databaseUrl,
        NATS_URL: natsUrl ?? s.natsUrl,
        ...env,
      },
    });
    if (stdin !== undefined) child.stdin.end(stdin);
    else child.stdin.end();
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** `env`: more variables for the CLI (a mini system's own outbound policy, for example). */
export async function admin<T = Record<string, unknown>>(args: string[], databaseUrl?: string, natsUrl?: string, input?: string, env: Record<string, string> = {}): Promise<T> {
  const r = await runAdmin(args, databaseUrl, natsUrl, input, env);
  if (r.code !== 0) throw new Error(`admin ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** `user create` with the password on standard input, as an operator bootstraps a workspace's owner. */
export async function createUser(workspaceId: string, email: string, role: 'owner' | 'admin' | 'member', password: string, name?: string): Promise<{ id: string; email: string; workspace_id: string; role: string }> {
  const r = await runAdmin(['user', 'create', '--workspace', workspaceId, '--email', email, '--role', role, '--password-stdin', ...(name ? ['--name', name] : [])], undefined, undefined, `${password}\n`);
  if (r.code !== 0) throw new Error(`admin user create failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}
