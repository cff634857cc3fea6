import { SMTPServer } from 'smtp-server';
import { freePort } from './infra';

/** One e-mail as the local SMTP server received it. */
export interface CapturedMail {
  from: string;
  to: string[];
  /** The message as sent (headers and MIME body). */
  raw: string;
  /** Headers unfolded, names lowercased (the first of each). */
  headers: Record<string, string>;
  /** The decoded text of every text/* part (quoted-printable and base64 undone), joined. */
  text: string;
  at: number;
}

export interface SmtpCapture {
  port: number;
  url: string;
  mails: CapturedMail[];
  to(address: string): CapturedMail[];
  stop(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1 (no TLS, no auth) recording every message it accepts. */
export async function startSmtpCapture(): Promise<SmtpCapture> {
  const mails: CapturedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (d: Buffer) => (raw += d.toString('utf8')));
      stream.on('end', () => {
        const parsed = parseMessage(raw);
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          raw,
          headers: parsed.headers,
          text: parsed.text,
          at: Date.now(),
        });
        callback();
      });
    },
  });
  // A client that goes away inside a transaction (an app killed, or stopped while it sends) makes the
  // server emit 'error'; with no listener that would be thrown in the test process ("read ECONNRESET").
  server.on('error', () => undefined);
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    mails,
    to: (address) => mails.filter((m) => m.to.includes(address.toLowerCase())),
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function splitHead(raw: string): { head: string; body: string } {
  const m = /\r?\n\r?\n/.exec(raw);
  return m ? { head: raw.slice(0, m.index), body: raw.slice(m.index + m[0].length) } : { head: raw, body: '' };
}

function headersOf(head: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) {
      const name = line.slice(0, i).trim().toLowerCase();
      out[name] ??= line.slice(i + 1).trim();
    }
  }
  return out;
}

function decodeBody(body: string, encoding: string | undefined): string {
  switch ((encoding ?? '').toLowerCase()) {
    case 'quoted-printable': {
      const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
      return Buffer.from(bytes, 'latin1').toString('utf8');
    }
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    default:
      return body;
  }
}

/** Headers and the decoded text/* parts of a MIME message (enough for the e-mails we send). */
export function parseMessage(raw: string): { headers: Record<string, string>; text: string } {
  const { head, body } = splitHead(raw);
  const headers = headersOf(head);
  return { headers, text: textParts(headers, body).join('\n') };
}

function textParts(headers: Record<string, string>, body: string): string[] {
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    const parts = body.split(`--${boundary}`).slice(1);
    return parts
      .filter((p) => !p.startsWith('--'))
      .flatMap((p) => {
        const { head, body: b } = splitHead(p.replace(/^\r?\n/, ''));
        return textParts(headersOf(head), b);
      });
  }
  if (!/^text\//i.test(type)) return [];
  return [decodeBody(body, headers['content-transfer-encoding'])];
}

/** Every absolute http(s) URL in a text (the e-mails' links). */
export function linksIn(text: string): string[] {
  return [...text.matchAll(/https?:\/\/[^\s"'<>)]+/g)].map((m) => m[0].replace(/[.,;]+$/, ''));
}
