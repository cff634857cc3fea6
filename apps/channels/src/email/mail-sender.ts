import { randomUUID } from 'node:crypto';
import { OutboundPolicy, Resolver } from '@sa/net-guard';
import type { NodemailerError } from 'nodemailer';
import { PermanentSendError, ProviderConnection, RetryableSendError } from '../providers/provider';
import { MAX_REFERENCES, MailReplyTo, normalizeMessageId } from './inbound-mail';
import { mailLibraries } from './mail-libraries';
import { MailSettingsInvalid, mailSettingsOrThrow, redactSecrets, resolveMailHost } from './mail-settings';

/**
 * Sends the bot's answer to an e-mail (issue 35) over the connection's SMTP server, in the same
 * thread: In-Reply-To and References name the message answered, so the sender's client shows it
 * under their mail, and their next reply carries the thread's root again (the same session).
 */

export interface SendMailOptions {
  /** The outbound guard's address rules (OUTBOUND_ALLOW_CIDRS). */
  policy: Pick<OutboundPolicy, 'allowCidrs'>;
  resolver?: Resolver;
  /** Certificates to trust besides the system's (a private CA; tests). */
  ca?: string | Buffer;
  /** Connection, greeting and each command's timeout. Default 30 s. */
  timeoutMs?: number;
}

/**
 * Sends `text` as the answer to the message `replyTo` describes (an InboundMessage's replyTo),
 * From the connection's from_name <from_address>, marked Auto-Submitted: auto-replied (RFC
 * 3834: it is an automatic answer, so other responders, ours included, do not answer it) and
 * X-Auto-Response-Suppress: All (Exchange's out-of-office stays quiet too). Returns our own
 * Message-ID. A 4xx reply or a connection failure is a RetryableSendError; a 5xx reply, a
 * refused login, a certificate that does not verify or a host the guard refuses is a
 * PermanentSendError.
 */
export async function sendMailReply(conn: ProviderConnection, replyTo: Record<string, unknown>, text: string, opts: SendMailOptions): Promise<{ providerMessageId: string }> {
  let settings;
  try {
    settings = mailSettingsOrThrow(conn);
  } catch (err) {
    if (err instanceof MailSettingsInvalid) throw new PermanentSendError(err.message);
    throw err;
  }
  const target = parseReplyTo(replyTo);
  const { smtp } = settings;
  const checked = await resolveMailHost(smtp.host, opts.policy, opts.resolver);
  if (!checked.ok) {
    const message = `the SMTP host was refused by the outbound guard: ${checked.reason}`;
    throw checked.blocked ? new PermanentSendError(message) : new RetryableSendError(message, null);
  }
  const domain = settings.fromAddress.slice(settings.fromAddress.lastIndexOf('@') + 1).toLowerCase();
  const messageId = `<${randomUUID()}@${domain}>`;
  const timeout = opts.timeoutMs ?? 30_000;
  const { createTransport } = await mailLibraries.smtp();
  const transport = createTransport({
    host: checked.target.address,
    port: smtp.port,
    secure: smtp.tls === 'implicit',
    requireTLS: smtp.tls === 'starttls',
    ignoreTLS: smtp.tls === 'none',
    servername: checked.target.servername,
    tls: { servername: checked.target.servername, ...(opts.ca ? { ca: opts.ca } : {}) },
    // EHLO with our mail domain, not this machine's host name.
    name: domain,
    auth: smtp.user !== '' ? { user: smtp.user, pass: smtp.password } : undefined,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    logger: false,
    debug: false,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  try {
    await transport.sendMail({
      from: { name: settings.fromName ?? '', address: settings.fromAddress },
      to: target.to,
      subject: replySubject(target.subject),
      text,
      messageId,
      inReplyTo: target.message_id,
      references: threadReferences(target),
      headers: { 'Auto-Submitted': 'auto-replied', 'X-Auto-Response-Suppress': 'All' },
    });
  } catch (err) {
    throw toSendError(err, conn);
  } finally {
    transport.close();
  }
  return { providerMessageId: messageId };
}

/** 'Re: ' + the subject, unless it already starts with a Re: (any case, "Re[2]:" too). */
export function replySubject(subject: string): string {
  const clean = subject.replace(/[\r\n\t]+/g, ' ').trim();
  if (/^re(\[\d+\])?\s*:/i.test(clean)) return clean;
  return clean === '' ? 'Re:' : `Re: ${clean}`;
}

/** The answer's References: the thread so far, then the message answered; the root kept when trimmed. */
function threadReferences(target: MailReplyTo): string[] {
  const ids = [...target.references.filter((id) => id !== target.message_id), target.message_id];
  if (ids.length <= MAX_REFERENCES + 1) return ids;
  return [ids[0], ...ids.slice(ids.length - MAX_REFERENCES)];
}

/** The stored replyTo, checked: it comes from our own database, but a bad row must not become a header. */
function parseReplyTo(replyTo: Record<string, unknown>): MailReplyTo {
  const to = typeof replyTo['to'] === 'string' ? replyTo['to'].trim() : '';
  const messageId = typeof replyTo['message_id'] === 'string' ? normalizeMessageId(replyTo['message_id']) : null;
  if (!/^[^\s@<>,;:"]+@[^\s@<>,;:"]+$/.test(to) || to.length > 254 || !messageId) {
    throw new PermanentSendError('the reply target is not an e-mail message (to and message_id are needed)');
  }
  const references = Array.isArray(replyTo['references'])
    ? replyTo['references'].map((r) => (typeof r === 'string' ? normalizeMessageId(r) : null)).filter((r): r is string => r !== null)
    : [];
  const subject = typeof replyTo['subject'] === 'string' ? replyTo['subject'].slice(0, 500) : '';
  return { to, subject, message_id: messageId, references };
}

const CERTIFICATE_ERROR = /certificate|self[- ]signed|CERT_|ERR_TLS_CERT|altname|unable to verify/i;

/** nodemailer's failure as the worker's two kinds, in words without a password. */
export function toSendError(err: unknown, conn: Pick<ProviderConnection, 'secrets'> = { secrets: {} }): RetryableSendError | PermanentSendError {
  const e = err as NodemailerError;
  const message = redactSecrets(`SMTP: ${e?.message ?? String(err)}`, conn);
  if (typeof e?.responseCode === 'number') {
    // RFC 5321: 4yz is transient, 5yz permanent; 503 (bad sequence) is a session problem, not the message's.
    if (e.responseCode >= 500 && e.responseCode !== 503) return new PermanentSendError(message);
    return new RetryableSendError(message, null);
  }
  if (e?.code === 'EAUTH' || e?.code === 'ENOAUTH') return new PermanentSendError(message);
  if (CERTIFICATE_ERROR.test(`${e?.code ?? ''} ${(e as { originalCode?: string })?.originalCode ?? ''} ${e?.message ?? ''}`)) return new PermanentSendError(message);
  if (e?.code === 'EENVELOPE' || e?.code === 'EMESSAGE' || e?.code === 'ECONFIG' || e?.code === 'EREQUIRETLS') return new PermanentSendError(message);
  // Connection refused, reset, timed out, DNS, a dropped TLS handshake: the server may be back later.
  return new RetryableSendError(message, null);
}
