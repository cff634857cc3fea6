import { randomBytes } from 'node:crypto';
import { connect, NatsConnection, Subscription } from 'nats';
import type { Page } from 'playwright-core';
import { createUser } from './admin';
import { e2eState } from './state';

export interface ConsoleResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * A browser-like client of the console's API: it keeps the session cookie, sends the console's
 * Origin, and the session's CSRF token with writes once signed in (each can be left out or
 * changed per request, to test the refusals).
 */
export class ConsoleClient {
  cookie: string | null = null;
  csrf: string | null = null;
  lastSetCookie: string | null = null;

  constructor(readonly baseUrl: string = e2eState().consoleUrl) {}

  async request<T = any>(method: string, path: string, body?: unknown, opts: { origin?: string | null; csrf?: string | null; headers?: Record<string, string> } = {}): Promise<ConsoleResponse<T>> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    const origin = opts.origin === undefined ? this.baseUrl : opts.origin;
    if (origin !== null) headers['origin'] = origin;
    // The session cookie, and any other cookie of this "browser" the test passes (oidc-provider's interaction cookies).
    const cookies = [this.cookie, opts.headers?.['cookie']].filter(Boolean);
    if (cookies.length) headers['cookie'] = cookies.join('; ');
    const csrf = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (csrf && !['GET', 'HEAD'].includes(method)) headers['x-csrf-token'] = csrf;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), redirect: 'manual' });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) {
      this.lastSetCookie = setCookie;
      const m = /^sa_console_session=([^;]*)/.exec(setCookie);
      if (m) this.cookie = m[1] ? `sa_console_session=${m[1]}` : null;
      if (m && (!m[1] || /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(setCookie))) this.cookie = null;
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  async signIn(email: string, password: string): Promise<ConsoleResponse> {
    const res = await this.request('POST', '/api/session', { email, password });
    if (res.status === 200) this.csrf = res.body.csrf_token;
    return res;
  }

  get = <T = any>(path: string) => this.request<T>('GET', path);
  post = <T = any>(path: string, body?: unknown) => this.request<T>('POST', path, body);
  patch = <T = any>(path: string, body?: unknown) => this.request<T>('PATCH', path, body);
  delete = <T = any>(path: string) => this.request<T>('DELETE', path);
}

export interface CapturedEmail {
  kind: string;
  to: string;
  subject: string;
  body_text: string;
  workspace_id?: string | null;
}

/**
 * Hears the e-mails the console asks the bookings service to send (`bookings.email.send`) with a
 * plain NATS subscription of its own beside the bookings service's queue group, and answers them
 * as Nest does (the bookings service, when it answers too, may be first: either reply will do).
 */
export class EmailTap {
  readonly emails: CapturedEmail[] = [];
  private constructor(
    private readonly nc: NatsConnection,
    private readonly sub: Subscription,
  ) {}

  static async start(natsUrl: string = e2eState().natsUrl): Promise<EmailTap> {
    const nc = await connect({ servers: natsUrl, name: 'e2e-email-tap' });
    const sub = nc.subscribe('bookings.email.send');
    const tap = new EmailTap(nc, sub);
    void (async () => {
      for await (const msg of sub) {
        const packet = JSON.parse(Buffer.from(msg.data).toString('utf8')) as { id: string; data: { data: CapturedEmail } };
        tap.emails.push(packet.data.data);
        msg.respond(Buffer.from(JSON.stringify({ id: packet.id, response: { id: `tap-${tap.emails.length}` }, isDisposed: true })));
      }
    })();
    return tap;
  }

  /** The first e-mail to `to` (of `kind`) heard after `since` mails, waiting up to `timeoutMs`. */
  async waitFor(to: string, kind: string, timeoutMs = 5000): Promise<CapturedEmail> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = this.emails.find((e) => e.to === to && e.kind === kind);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no ${kind} e-mail to ${to} within ${timeoutMs} ms (heard: ${this.emails.map((e) => `${e.kind}→${e.to}`).join(', ') || 'none'})`);
  }

  async stop(): Promise<void> {
    this.sub.unsubscribe();
    await this.nc.drain();
  }
}

/** The token of a console link (`…#token=<token>`). */
export function tokenOfLink(body: string, path: string): string {
  const m = new RegExp(`${path.replace(/[/.]/g, '\\$&')}#token=([A-Za-z0-9_-]+)`).exec(body);
  if (!m) throw new Error(`no ${path}#token= link in: ${body}`);
  return m[1];
}

export interface WorkspacePeople {
  owner: ConsoleClient;
  admin: ConsoleClient;
  member: ConsoleClient;
  emails: { owner: string; admin: string; member: string };
}

/**
 * An owner, an admin and a member of the workspace, each signed in to the console's API. `named`
 * gives the fixed addresses the screenshots in docs/ show; otherwise they are unique.
 */
export async function workspacePeople(workspaceId: string, password: string, named = false): Promise<WorkspacePeople> {
  const tag = randomBytes(4).toString('hex');
  const emails = named
    ? { owner: 'olivia.owner@acme.example', admin: 'ada.admin@acme.example', member: 'max.member@acme.example' }
    : { owner: `owner-${tag}@example.com`, admin: `admin-${tag}@example.com`, member: `member-${tag}@example.com` };
  const clients: Record<string, ConsoleClient> = {};
  for (const role of ['owner', 'admin', 'member'] as const) {
    await createUser(workspaceId, emails[role], role, password);
    clients[role] = new ConsoleClient();
    const res = await clients[role]!.signIn(emails[role], password);
    if (res.status !== 200) throw new Error(`signing in ${emails[role]} failed: ${res.status} ${res.text}`);
  }
  return { owner: clients['owner']!, admin: clients['admin']!, member: clients['member']!, emails };
}

/** Signs in on the console's sign-in page, as a person does, and waits for the console's navigation. */
export async function signInPage(page: Page, email: string, password: string, consoleUrl = e2eState().consoleUrl): Promise<void> {
  await page.goto(`${consoleUrl}/sign-in`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Console' }).waitFor({ timeout: 15000 });
}
