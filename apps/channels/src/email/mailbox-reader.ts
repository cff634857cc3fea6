import { backoffMs, BackoffOptions } from '@sa/backoff';
import { OutboundPolicy, Resolver } from '@sa/net-guard';
import type { ImapFlow, ImapFlowError } from 'imapflow';
import type { ParsedMail } from 'mailparser';
import { InboundMessage, ProviderConnection } from '../providers/provider';
import { automatedReason, toInboundMessage } from './inbound-mail';
import { mailLibraries } from './mail-libraries';
import { MailSettings, MailSettingsInvalid, mailSettingsOrThrow, redactSecrets, resolveMailHost } from './mail-settings';

/**
 * Reads an e-mail connection's mailbox over IMAP (issue 35): every message after the
 * checkpoint, in UID order, handed to `onMessage` (which stores it durably), then marked \Seen
 * and checkpointed; then IDLE (or, without it, a poll every `pollMs`) until more arrives. A
 * dropped connection is reopened with backoff. The order (store, then \Seen, then checkpoint)
 * means a crash at any point re-reads at most the message in hand, never loses one; its
 * Message-ID (the user message's provider_message_id) makes the second delivery a duplicate.
 */

/** Where reading stopped: the mailbox's UIDVALIDITY and the last UID handled (store it as bigint: UIDVALIDITY is 32-bit unsigned). */
export interface MailCheckpoint {
  uidValidity: number;
  lastUid: number;
}

/** What the reader knows of a message besides its InboundMessage (for logs and for the caller's record of it). */
export interface MailInfo {
  uid: number;
  uidValidity: number;
  /** Bytes on the server (what was read is at most maxMessageBytes of it). */
  size: number;
  messageId: string | null;
  from: string | null;
  subject: string | null;
  /** Why the InboundMessage is null: the message could not be parsed, or has no sender or no text. */
  problem?: string;
}

export type MailboxStatus =
  | { state: 'connected'; idle: boolean }
  /** Connecting or reading failed; the reader retries after a backoff. Never contains a password. */
  | { state: 'error'; message: string; attempt: number };

export interface MailboxReaderOptions {
  connection: ProviderConnection;
  /** The stored checkpoint, null for a connection never read. */
  start: MailCheckpoint | null;
  /** Stores the new checkpoint; awaited before the next message. */
  checkpoint: (uidValidity: number, uid: number) => Promise<void>;
  /**
   * Stores a message durably (awaited; a throw leaves the message unread and reconnects after a
   * backoff). Null when it cannot be answered (`info.problem` says why). Never called for
   * automated mail (auto-replies, bounces, lists): those go to onSkipped.
   */
  onMessage: (msg: InboundMessage | null, info: MailInfo) => Promise<void>;
  onSkipped?: (info: MailInfo, reason: string) => void;
  onStatus?: (status: MailboxStatus) => void;
  /** The outbound guard's address rules (OUTBOUND_ALLOW_CIDRS). */
  policy: Pick<OutboundPolicy, 'allowCidrs'>;
  resolver?: Resolver;
  /** How often to look for new mail without IDLE, and to re-check under IDLE. Default 60 s. */
  pollMs?: number;
  /** Waits between reconnection attempts. Default 1 s doubling to 5 min. */
  backoff?: BackoffOptions;
  /**
   * With no checkpoint, or after UIDVALIDITY changed (the mailbox was recreated or restored),
   * unread mail received within this window is read; older unread mail is left alone, so that
   * connecting a mailbox with years of unread mail does not answer all of it. IMAP's SINCE
   * compares dates, so the window starts at the beginning of that day. Default 3 days.
   */
  catchUpMs?: number;
  /** The most of one message read (headers and text come first; attachments beyond it are cut). Default 10 MiB. */
  maxMessageBytes?: number;
  /** Certificates to trust besides the system's (a private CA; tests). */
  ca?: string | Buffer;
  connectTimeoutMs?: number;
}

const DEFAULTS = {
  pollMs: 60_000,
  backoff: { baseMs: 1000, maxMs: 5 * 60_000 },
  catchUpMs: 3 * 24 * 60 * 60_000,
  maxMessageBytes: 10 * 1024 * 1024,
  connectTimeoutMs: 30_000,
};

/** mailparser's work bounded: no HTML links rewritten, no attachment hashing, HTML over 2 MB not converted. */
const PARSER_OPTIONS = { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true, checksumAlgo: false as const, maxHtmlLengthToParse: 2_000_000 };

export class MailboxReader {
  private readonly pollMs: number;
  private readonly backoff: BackoffOptions;
  private position: MailCheckpoint | null;
  private stopped = false;
  private loop: Promise<void> | null = null;
  /** Ends the current wait (IDLE, poll timer or backoff) early. */
  private wake: (() => void) | null = null;
  /** The connection of the running session (an old one's late events are ignored). */
  private current: ImapFlow | null = null;

  constructor(private readonly opts: MailboxReaderOptions) {
    this.pollMs = opts.pollMs ?? DEFAULTS.pollMs;
    this.backoff = opts.backoff ?? DEFAULTS.backoff;
    this.position = opts.start ? { ...opts.start } : null;
  }

  /** Starts reading in the background; errors are reported through onStatus, never thrown. */
  start(): void {
    this.loop ??= this.run();
  }

  /** Stops after the message in hand (if any), logs out, and resolves when nothing runs any more. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }

  /** The checkpoint reached so far. */
  get checkpointReached(): MailCheckpoint | null {
    return this.position ? { ...this.position } : null;
  }

  private async run(): Promise<void> {
    let attempt = 0;
    while (!this.stopped) {
      try {
        await this.session(() => {
          attempt = 0;
        });
      } catch (err) {
        if (this.stopped) break;
        attempt++;
        this.opts.onStatus?.({ state: 'error', message: this.describe(err), attempt });
      }
      if (this.stopped) break;
      await this.sleep(backoffMs(attempt, this.backoff));
    }
  }

  /** One connection: open the mailbox, catch up, then read and wait until it fails or stop() is called. */
  private async session(onConnected: () => void): Promise<void> {
    const settings = mailSettingsOrThrow(this.opts.connection);
    const client = await this.connect(settings);
    try {
      const box = await client.mailboxOpen(settings.imap.mailbox);
      const uidValidity = Number(box.uidValidity);
      const idle = client.capabilities.has('IDLE');
      onConnected();
      this.opts.onStatus?.({ state: 'connected', idle });
      // New mail announced while a read is under way (the server says EXISTS in the answer to any
      // command) is read at once: IDLE would not announce it again, and it would wait for pollMs.
      let announced = false;
      const onExists = () => (announced = true);
      client.on('exists', onExists);
      try {
        if (!this.position || this.position.uidValidity !== uidValidity) await this.catchUp(client, settings, uidValidity, box.uidNext);
        while (!this.stopped) {
          announced = false;
          await this.readNew(client, settings, uidValidity);
          if (this.stopped) break;
          if (!announced) await this.waitForMail(client, idle);
          if (!client.usable && !this.stopped) throw new Error('the server closed the connection');
        }
      } finally {
        client.off('exists', onExists);
      }
    } finally {
      await this.close(client);
    }
  }

  private async connect(settings: MailSettings): Promise<ImapFlow> {
    const { imap } = settings;
    const checked = await resolveMailHost(imap.host, this.opts.policy, this.opts.resolver);
    if (!checked.ok) throw new Error(`the IMAP host was refused by the outbound guard: ${checked.reason}`);
    const { ImapFlow } = await mailLibraries.imap();
    const client = new ImapFlow({
      host: checked.target.address,
      port: imap.port,
      secure: imap.tls === 'implicit',
      // STARTTLS is required when asked for (never a silent cleartext fallback), never tried with 'none'.
      doSTARTTLS: imap.tls === 'starttls' ? true : imap.tls === 'none' ? false : undefined,
      servername: checked.target.servername,
      tls: { servername: checked.target.servername, ...(this.opts.ca ? { ca: this.opts.ca } : {}) },
      auth: { user: imap.user, pass: imap.password },
      logger: false,
      disableAutoIdle: true,
      connectionTimeout: this.opts.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
      greetingTimeout: 16_000,
      // A server's answer bigger than this is refused rather than held in memory.
      maxLiteralSize: (this.opts.maxMessageBytes ?? DEFAULTS.maxMessageBytes) + 64 * 1024,
    });
    // An 'error' event without a listener would crash the process; the session sees the closed connection.
    client.on('error', () => {
      if (this.current === client) this.wake?.();
    });
    this.current = client;
    try {
      await client.connect();
    } catch (err) {
      client.close();
      throw err;
    }
    return client;
  }

  /** With no usable checkpoint: the recent unread mail, then a checkpoint at the mailbox's end. */
  private async catchUp(client: ImapFlow, settings: MailSettings, uidValidity: number, uidNext: number): Promise<void> {
    const since = new Date(Date.now() - (this.opts.catchUpMs ?? DEFAULTS.catchUpMs));
    const unseen = ascending((await client.search({ seen: false, since }, { uid: true })) || []);
    let last = Math.max(0, uidNext - 1);
    for (const uid of unseen) {
      if (this.stopped) return;
      // No checkpoint per message here: older read mail between them must not be re-read. A
      // crash mid-way catches up again, and what was handled is \Seen by then.
      await this.handle(client, settings, uidValidity, uid);
      last = Math.max(last, uid);
    }
    await this.store('storing the checkpoint', () => this.opts.checkpoint(uidValidity, last));
    this.position = { uidValidity, lastUid: last };
  }

  private async readNew(client: ImapFlow, settings: MailSettings, uidValidity: number): Promise<void> {
    const mailbox = client.mailbox;
    if (mailbox && Number(mailbox.uidValidity) !== uidValidity) throw new Error('the mailbox UIDVALIDITY changed');
    const position = this.position as MailCheckpoint;
    // "N:*" always includes the highest UID, even below N: filter.
    const found = (await client.search({ uid: `${position.lastUid + 1}:*` }, { uid: true })) || [];
    for (const uid of ascending(found).filter((u) => u > position.lastUid)) {
      if (this.stopped) return;
      await this.handle(client, settings, uidValidity, uid);
      await this.store('storing the checkpoint', () => this.opts.checkpoint(uidValidity, uid));
      this.position = { uidValidity, lastUid: uid };
    }
  }

  /** One message: parse, skip if automated (left unread for a person), else hand over and mark \Seen. */
  private async handle(client: ImapFlow, settings: MailSettings, uidValidity: number, uid: number): Promise<void> {
    const maxLength = this.opts.maxMessageBytes ?? DEFAULTS.maxMessageBytes;
    const fetched = await client.fetchOne(String(uid), { uid: true, size: true, source: { maxLength } }, { uid: true });
    if (!fetched) return; // expunged meanwhile
    const source = fetched.source ?? Buffer.alloc(0);
    let parsed: ParsedMail | null = null;
    let problem: string | undefined;
    try {
      parsed = await (await mailLibraries.parser()).simpleParser(source, PARSER_OPTIONS);
    } catch (err) {
      problem = `could not parse the message: ${(err as Error).message}`;
    }
    const info: MailInfo = {
      uid,
      uidValidity,
      size: fetched.size ?? source.length,
      messageId: parsed?.messageId ?? null,
      from: parsed?.from?.value[0]?.address ?? null,
      subject: parsed?.subject ?? null,
    };
    if (parsed) {
      const reason = automatedReason(parsed, ownAddresses(settings));
      if (reason) {
        this.opts.onSkipped?.(info, reason);
        return;
      }
    }
    const msg = parsed ? toInboundMessage(parsed) : null;
    if (!msg) info.problem = problem ?? 'no sender address or no text once quotes and signature are stripped';
    await this.store('storing a message', () => this.opts.onMessage(msg, info));
    await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true }).catch(() => false);
  }

  /** Runs one of the caller's callbacks; its failure is reported as ours to store, not as the server's. */
  private async store(what: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      throw new StoreFailed(`${what} failed: ${(err as Error)?.message ?? String(err)}`);
    }
  }

  /** Until new mail is announced (IDLE's EXISTS), `pollMs` passes, the connection drops, or stop(). */
  private waitForMail(client: ImapFlow, idle: boolean): Promise<void> {
    return new Promise<void>((resolve) => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        client.off('exists', finish);
        client.off('close', finish);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(finish, this.pollMs);
      client.on('exists', finish);
      client.on('close', finish);
      this.wake = finish;
      if (this.stopped || !client.usable) finish();
      // IDLE ends by itself when the next command (the search after the wake) is sent.
      else if (idle) client.idle().catch(finish);
    });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(finish, ms);
      function finish() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        finish();
      };
      if (this.stopped) finish();
    });
  }

  private async close(client: ImapFlow): Promise<void> {
    if (this.current === client) this.current = null;
    if (!client.usable) {
      client.close();
      return;
    }
    const timeout = new Promise((resolve) => setTimeout(resolve, 3000).unref());
    await Promise.race([client.logout().catch(() => undefined), timeout]);
    client.close();
  }

  /** A failure in words, without a password (the server's text is included, our command never is). */
  private describe(err: unknown): string {
    if (err instanceof MailSettingsInvalid) return err.message;
    if (err instanceof StoreFailed) return redactSecrets(err.message, this.opts.connection);
    const e = err as ImapFlowError;
    const settings = this.opts.connection.settings ?? {};
    const where = `IMAP ${settings['imap_host'] ?? '?'}`;
    let message: string;
    if (e?.authenticationFailed) message = `${where}: login failed (check imap_user and imap_password)`;
    else if (e?.mailboxMissing) message = `${where}: the mailbox "${settings['mailbox'] || 'INBOX'}" does not exist`;
    else message = `${where}: ${e?.message ?? String(err)}${e?.responseText && !e.message?.includes(e.responseText) ? ` (${e.responseText})` : ''}`;
    return redactSecrets(message, this.opts.connection);
  }
}

/** The caller's onMessage or checkpoint failed: the message stays unhandled and is read again after the backoff. */
class StoreFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreFailed';
  }
}

function ascending(uids: number[]): number[] {
  return [...new Set(uids)].sort((a, b) => a - b);
}

/** Mail from these is ours and never answered: the From address, and the mailbox's login when it is an address. */
function ownAddresses(settings: MailSettings): string[] {
  return [settings.fromAddress, settings.imap.user, settings.smtp.user].filter((a) => a.includes('@'));
}
