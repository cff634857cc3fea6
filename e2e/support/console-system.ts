import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { admin } from './admin';
import { ConsoleClient } from './console';
import { waitFor } from './apps';
import { freePort } from './infra';
import { MiniSystem, startMiniSystem } from './mini-system';
import { startSmtpCapture, SmtpCapture } from './smtp-capture';
import { startWebhookReceiver, WebhookReceiver } from './webhook-receiver';

/**
 * The console's browser tests run against a system of their own, started once per suite: every
 * app but mcp (the console included) on a fresh migrated database and a private NATS, Redis, a
 * real local SMTP server capturing the mail outbox's e-mails, and a local webhook receiver the
 * outbound policy allows (loopback, its port).
 */
export interface ConsoleSystem {
  mini: MiniSystem;
  /** http://127.0.0.1:<CONSOLE_PORT> (also CONSOLE_PUBLIC_URL, so e-mailed links point here). */
  consoleUrl: string;
  gatewayUrl: string;
  /** The public API, <gateway>/v1. */
  apiUrl: string;
  smtp: SmtpCapture;
  receiver: WebhookReceiver;
  natsUrl: string;
  /** Runs the admin CLI against this system (the password, if any, on standard input). */
  admin<T = Record<string, unknown>>(args: string[], stdin?: string): Promise<T>;
  stop(): Promise<void>;
}

export const CONSOLE_APPS = ['gateway', 'bots', 'knowledge', 'chat', 'leads', 'bookings', 'webhook-dispatcher', 'console'];

export interface ConsoleSystemOptions {
  /** The apps to start (default CONSOLE_APPS); the MCP OAuth suite adds 'mcp'. */
  apps?: string[];
  /** More ports the outbound policy allows (local test servers the console fetches from). */
  allowPorts?: number[];
}

export async function startConsoleSystem(env: Record<string, string> = {}, options: ConsoleSystemOptions = {}): Promise<ConsoleSystem> {
  // The apps' ops endpoints listen on port 0, so the OS may hand one of them the port freePort()
  // chose for the console before the console binds it (EADDRINUSE): then start again, once.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startConsoleSystemOnce(env, options);
    } catch (e) {
      if (attempt >= 2 || !/EADDRINUSE/.test((e as Error).message)) throw e;
    }
  }
}

async function startConsoleSystemOnce(env: Record<string, string>, options: ConsoleSystemOptions): Promise<ConsoleSystem> {
  const smtp = await startSmtpCapture();
  const receiver = await startWebhookReceiver();
  const consolePort = await freePort();
  const consoleUrl = `http://127.0.0.1:${consolePort}`;
  const suite = randomBytes(4).toString('hex');
  const mini = await startMiniSystem(options.apps ?? CONSOLE_APPS, {
    CONSOLE_PORT: String(consolePort),
    CONSOLE_HOST: '127.0.0.1',
    CONSOLE_PUBLIC_URL: consoleUrl,
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Support Agent <console@example.test>',
    MAIL_POLL_MS: '200',
    OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
    OUTBOUND_ALLOWED_PORTS: [80, 443, receiver.port, ...(options.allowPorts ?? [])].join(','),
    // Counters of this suite only (the shared Redis also serves the main e2e system).
    RATE_LIMIT_PREFIX: `sa:e2e:console:${suite}:rl:`,
    CONSOLE_THROTTLE_PREFIX: `sa:e2e:console:${suite}:signin:`,
    ...env,
  }, { logs: true });
  const gatewayUrl = mini.baseUrl.replace(/\/v1$/, '');
  try {
    const consoleApp = mini.apps.get('console');
    // Answered 401 (up), or the console process exited (then stop waiting: the error says why).
    await waitFor(
      () => (consoleApp && consoleApp.process.exitCode !== null ? Promise.resolve(-1) : fetch(`${consoleUrl}/api/session`).then((r) => r.status).catch(() => 0)),
      (st) => st === 401 || st === -1,
      90000,
      200,
    );
    if (consoleApp && consoleApp.process.exitCode !== null) throw new Error('the console process exited');
  } catch (e) {
    const app = mini.apps.get('console');
    const tail = app?.logFile && fs.existsSync(app.logFile) ? fs.readFileSync(app.logFile, 'utf8').split('\n').slice(-30).join('\n') : '(no log)';
    const exit = app && app.process.exitCode !== null ? ` (it exited with code ${app.process.exitCode})` : '';
    await mini.stop();
    await smtp.stop();
    await receiver.stop();
    throw new Error(`the console did not answer on ${consoleUrl}${exit}: ${(e as Error).message}\n${tail}`);
  }
  const natsUrl = mini.env['NATS_URL']!;
  return {
    mini,
    consoleUrl,
    gatewayUrl,
    apiUrl: mini.baseUrl,
    smtp,
    receiver,
    natsUrl,
    admin: (args, stdin) => admin(args, mini.databaseUrl, natsUrl, stdin),
    stop: async () => {
      await mini.stop();
      await smtp.stop();
      await receiver.stop();
    },
  };
}

export interface PeopleOfWorkspace {
  ws: { id: string };
  /** An API token with every scope. */
  token: string;
  /** Signed in to the console. */
  owner: ConsoleClient;
  member: ConsoleClient;
}

/** A Scale workspace with an owner and a member (both signed in to the console) and an all-scopes API token. */
export async function workspaceWithPeople(sys: ConsoleSystem, name: string, people: { owner: string; member: string; password: string }): Promise<PeopleOfWorkspace> {
  const ws = await sys.admin<{ id: string }>(['workspace', 'create', '--name', name, '--plan', 'scale']);
  await sys.admin(['user', 'create', '--workspace', ws.id, '--email', people.owner, '--role', 'owner', '--password-stdin'], `${people.password}\n`);
  await sys.admin(['user', 'create', '--workspace', ws.id, '--email', people.member, '--role', 'member', '--password-stdin'], `${people.password}\n`);
  const token = (await sys.admin<{ token: string }>(['token', 'create', '--workspace', ws.id, '--scopes', 'all'])).token;
  const owner = new ConsoleClient(sys.consoleUrl);
  const member = new ConsoleClient(sys.consoleUrl);
  for (const [client, email] of [[owner, people.owner], [member, people.member]] as const) {
    const res = await client.signIn(email, people.password);
    if (res.status !== 200) throw new Error(`${email} could not sign in: ${res.status} ${res.text}`);
  }
  return { ws, token, owner, member };
}
