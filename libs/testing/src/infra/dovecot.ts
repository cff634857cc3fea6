import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ImapFlow } from 'imapflow';
import { freePort } from './local-services';

/**
 * A private Dovecot IMAP server for tests of the e-mail channel (issue 35): Debian's dovecot
 * (package dovecot-imapd) started as a child process with a configuration of its own in a
 * temporary directory, so it never touches, or conflicts with, a system Dovecot: its own
 * base_dir and state_dir, a Maildir and a passwd-file with one user, listeners on free
 * 127.0.0.1 ports only. It runs as root (mail stored as the package's `dovecot` user, login
 * processes as `dovenull`) or as any other user (everything as that user).
 */
export interface PrivateDovecot {
  host: string;
  /** The IMAP port (cleartext; STARTTLS offered when started with `tls`). */
  port: number;
  /** The implicit-TLS IMAP port (IMAPS), when started with `tls`. */
  tlsPort: number | null;
  user: string;
  password: string;
  /** The host name the certificate was made for, when started with `tls`. */
  certificateHost: string | null;
  /** The self-signed certificate (PEM), to trust as a CA in the client under test. */
  certificate: string | null;
  /** What Dovecot logged so far (for a failing test's message). */
  log(): string;
  stop(): Promise<void>;
  /** Stops the server (every connection drops) and starts it again on the same ports with the same mail. */
  restart(downMs?: number): Promise<void>;
}

export interface DovecotOptions {
  /** Advertise IDLE (default true). False replaces the capability list with one without it, to test polling. */
  idle?: boolean;
  /** Also listen with implicit TLS and offer STARTTLS, with a self-signed certificate for `hostname`. */
  tls?: { hostname: string };
  user?: string;
  password?: string;
}

/** The dovecot binary: DOVECOT_BIN, then Debian's path, then PATH. */
export function findDovecot(): string | null {
  const candidates = [process.env['DOVECOT_BIN'], '/usr/sbin/dovecot', '/usr/local/sbin/dovecot'].filter(Boolean) as string[];
  for (const c of candidates) if (fs.existsSync(c)) return c;
  const which = spawnSync('sh', ['-c', 'command -v dovecot'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() !== '' ? which.stdout.trim() : null;
}

// Dovecot's default post-login capabilities without IDLE (imap_capability replaces the list).
const CAPABILITIES_WITHOUT_IDLE = 'IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE SORT THREAD=REFERENCES MULTIAPPEND UNSELECT CHILDREN NAMESPACE UIDPLUS LIST-EXTENDED I18NLEVEL=1 ESEARCH ESORT SEARCHRES WITHIN CONTEXT=SEARCH LIST-STATUS BINARY MOVE LITERAL+';

export async function startDovecot(opts: DovecotOptions = {}): Promise<PrivateDovecot> {
  const bin = findDovecot();
  if (!bin) throw new Error('dovecot is not installed: apt-get install -y dovecot-imapd (or set DOVECOT_BIN)');
  const user = opts.user ?? 'bot';
  const password = opts.password ?? `pw-${Math.random().toString(36).slice(2)}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-dovecot-'));
  // Dovecot's auth process (another user when run as root) reads the passwd-file in here.
  fs.chmodSync(dir, 0o755);
  for (const sub of ['run', 'state', 'mail']) fs.mkdirSync(path.join(dir, sub));
  fs.writeFileSync(path.join(dir, 'users'), `${user}:{PLAIN}${password}\n`, { mode: 0o644 });
  const owner = mailOwner();
  if (process.getuid?.() === 0) fs.chownSync(path.join(dir, 'mail'), owner.uid, owner.gid);

  const port = await freePort();
  const tlsPort = opts.tls ? await freePort() : null;
  const cert = opts.tls ? writeSelfSignedCertificate(dir, opts.tls.hostname) : null;
  const logFile = path.join(dir, 'dovecot.log');
  fs.writeFileSync(path.join(dir, 'dovecot.conf'), config({ dir, port, tlsPort, cert, owner, idle: opts.idle ?? true, logFile }));

  let stderr = '';
  const launch = () => {
    // Its own process group: stopping it ends its imap processes too, and with them every session
    // (the master alone leaves running sessions to finish).
    const started = spawn(bin, ['-F', '-c', path.join(dir, 'dovecot.conf')], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    started.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    return started;
  };
  let child = launch();
  const log = () => `${stderr}${fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''}`;
  const server: PrivateDovecot = {
    host: '127.0.0.1',
    port,
    tlsPort,
    user,
    password,
    certificateHost: opts.tls?.hostname ?? null,
    certificate: cert ? fs.readFileSync(cert.cert, 'utf8') : null,
    log,
    stop: async () => {
      await stopChild(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
    restart: async (downMs = 0) => {
      await stopChild(child);
      await new Promise((r) => setTimeout(r, downMs));
      child = launch();
      await waitForLogin(server, child, 15_000);
    },
  };
  try {
    await waitForLogin(server, child, 15_000);
  } catch (err) {
    await server.stop();
    throw new Error(`dovecot did not start: ${(err as Error).message}\n${log()}`);
  }
  return server;
}

/** Who owns the mail: the package's `dovecot` user under root (Dovecot refuses uid 0), else ourselves. */
function mailOwner(): { uid: number; gid: number; user: string; group: string } {
  if (process.getuid?.() !== 0) {
    const info = os.userInfo();
    const group = spawnSync('id', ['-gn'], { encoding: 'utf8' }).stdout.trim() || String(info.gid);
    return { uid: info.uid, gid: info.gid, user: info.username, group };
  }
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('dovecot:'));
  if (!line) throw new Error('running as root needs the dovecot system user (created by the dovecot-core package)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid), user: 'dovecot', group: 'dovecot' };
}

function config(c: {
  dir: string;
  port: number;
  tlsPort: number | null;
  cert: { cert: string; key: string } | null;
  owner: { uid: number; gid: number; user: string; group: string };
  idle: boolean;
  logFile: string;
}): string {
  const asRoot = process.getuid?.() === 0;
  return [
    `base_dir = ${c.dir}/run`,
    `state_dir = ${c.dir}/state`,
    `instance_name = sa-test-${path.basename(c.dir)}`,
    `log_path = ${c.logFile}`,
    'protocols = imap',
    'listen = 127.0.0.1',
    c.cert ? `ssl = yes\nssl_cert = <${c.cert.cert}\nssl_key = <${c.cert.key}` : 'ssl = no',
    'disable_plaintext_auth = no',
    'auth_mechanisms = plain login',
    'first_valid_uid = 1',
    `mail_location = maildir:${c.dir}/mail/%u`,
    c.idle ? '' : `imap_capability = ${CAPABILITIES_WITHOUT_IDLE}`,
    // Without root, every process runs as us: no user switch, no chroot.
    asRoot ? '' : `default_login_user = ${c.owner.user}\ndefault_internal_user = ${c.owner.user}\ndefault_internal_group = ${c.owner.group}`,
    `passdb {\n  driver = passwd-file\n  args = scheme=PLAIN ${c.dir}/users\n}`,
    `userdb {\n  driver = static\n  args = uid=${c.owner.uid} gid=${c.owner.gid} home=${c.dir}/mail/%u\n}`,
    'service imap-login {',
    '  chroot =',
    `  inet_listener imap {\n    address = 127.0.0.1\n    port = ${c.port}\n  }`,
    c.tlsPort ? `  inet_listener imaps {\n    address = 127.0.0.1\n    port = ${c.tlsPort}\n    ssl = yes\n  }` : '  inet_listener imaps {\n    port = 0\n  }',
    '}',
    // No auth penalty (Dovecot's documented switch): a test of a wrong password must not slow every later login down.
    'service anvil {\n  chroot =\n  unix_listener anvil-auth-penalty {\n    mode = 0\n  }\n}',
    'service pop3-login {\n  inet_listener pop3 {\n    port = 0\n  }\n  inet_listener pop3s {\n    port = 0\n  }\n}',
    'service submission-login {\n  inet_listener submission {\n    port = 0\n  }\n}',
    '',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/** A key and a certificate for `hostname` (PEM), self-signed with the openssl CLI (which dovecot-core depends on). */
export function selfSignedCertificate(hostname: string): { key: string; cert: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-cert-'));
  try {
    const files = writeSelfSignedCertificate(dir, hostname);
    return { key: fs.readFileSync(files.key, 'utf8'), cert: fs.readFileSync(files.cert, 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function writeSelfSignedCertificate(dir: string, hostname: string): { cert: string; key: string } {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  const result = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${hostname}`, '-addext', `subjectAltName=DNS:${hostname}`, '-keyout', key, '-out', cert],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`openssl could not make a certificate: ${result.stderr}`);
  fs.chmodSync(key, 0o644);
  return { cert, key };
}

/** Dovecot answers before its auth process is up ("Waiting for authentication process"): wait for a real login. */
async function waitForLogin(server: PrivateDovecot, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = null;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`dovecot exited with code ${child.exitCode}`);
    const client = imapClient(server);
    try {
      await client.connect();
      await client.logout();
      return;
    } catch (err) {
      last = err;
      client.close();
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`no IMAP login within ${timeoutMs} ms: ${(last as Error)?.message ?? 'timeout'}`);
}

/** Stops the master and its process group (the group is the master's pid: it was started detached). */
async function stopChild(child: ChildProcess): Promise<void> {
  const group = child.pid;
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (group) process.kill(-group, signal);
    } catch {
      // already gone
    }
  };
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    signalGroup('SIGTERM');
    const timer = setTimeout(() => signalGroup('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
  // Sessions that outlived the master.
  signalGroup('SIGKILL');
}

/** A cleartext client of the test user (the test's own side: delivering and inspecting mail). */
function imapClient(server: PrivateDovecot): ImapFlow {
  return new ImapFlow({ host: server.host, port: server.port, secure: false, doSTARTTLS: false, auth: { user: server.user, pass: server.password }, logger: false });
}

/** Runs `fn` on a connection with `mailbox` selected. */
async function withMailbox<T>(server: PrivateDovecot, mailbox: string, fn: (client: ImapFlow) => Promise<T>): Promise<T> {
  const client = imapClient(server);
  await client.connect();
  try {
    await client.mailboxOpen(mailbox);
    return await fn(client);
  } finally {
    await client.logout().catch(() => client.close());
  }
}

/**
 * Delivers a raw message into the test user's mailbox (IMAP APPEND, as an MTA's final delivery
 * would leave it: unseen). Returns its UID.
 */
export async function deliverMail(server: PrivateDovecot, raw: string | Buffer, opts: { mailbox?: string; flags?: string[] } = {}): Promise<{ uid: number }> {
  const mailbox = opts.mailbox ?? 'INBOX';
  return withMailbox(server, mailbox, async (client) => {
    const result = await client.append(mailbox, typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw, opts.flags ?? []);
    if (!result || typeof result.uid !== 'number') throw new Error('APPEND did not report a UID');
    return { uid: result.uid };
  });
}

/** The messages of a mailbox with their flags, by UID. */
export async function listMail(server: PrivateDovecot, mailbox = 'INBOX'): Promise<{ uid: number; flags: string[] }[]> {
  return withMailbox(server, mailbox, async (client) => {
    const out: { uid: number; flags: string[] }[] = [];
    for await (const msg of client.fetch('1:*', { uid: true, flags: true })) out.push({ uid: msg.uid, flags: [...(msg.flags ?? [])] });
    return out.sort((a, b) => a.uid - b.uid);
  }).catch((err: Error) => {
    // An empty mailbox has no "1:*".
    if (/empty|no messages|invalid messageset/i.test(err.message)) return [];
    throw err;
  });
}

/** Deletes and recreates a mailbox: a new UIDVALIDITY, as after a server-side restore. */
export async function recreateMailbox(server: PrivateDovecot, mailbox: string): Promise<void> {
  const client = imapClient(server);
  await client.connect();
  try {
    await client.mailboxDelete(mailbox).catch(() => undefined);
    await client.mailboxCreate(mailbox);
  } finally {
    await client.logout().catch(() => client.close());
  }
}
