import { isIP } from 'node:net';
import { classifyAddress, isInternalHostname, OutboundPolicy, parseHostAddress, Resolver, resolveAndCheck } from '@sa/net-guard';
import { ProviderConnection } from '../providers/provider';

/**
 * An e-mail connection (issue 35): a mailbox read over IMAP and answered over SMTP. These are the
 * names of its ProviderConnection.settings and .secrets, their defaults, and the one check that
 * turns them into typed settings (at connect time, and when a connection is saved).
 */

/** Non-secret settings of an e-mail connection. */
export const MAIL_SETTING_NAMES = [
  'imap_host',
  'imap_port',
  'imap_tls',
  'imap_user',
  'mailbox',
  'smtp_host',
  'smtp_port',
  'smtp_tls',
  'smtp_user',
  'from_address',
  'from_name',
] as const;

/** Secrets of an e-mail connection (stored sealed, never logged). */
export const MAIL_SECRET_NAMES = ['imap_password', 'smtp_password'] as const;

/**
 * How a connection is protected: `implicit` TLS from the first byte (IMAP 993, SMTP 465),
 * `starttls` upgraded after the greeting and required (IMAP 143, SMTP 587), or `none`
 * (cleartext: only for a server on a network the operator trusts).
 */
export const MAIL_TLS_MODES = ['implicit', 'starttls', 'none'] as const;
export type MailTls = (typeof MAIL_TLS_MODES)[number];

/** One server and the account on it. */
export interface MailServer {
  /** Host name (lower-cased) or canonical IP literal, without brackets. */
  host: string;
  port: number;
  tls: MailTls;
  user: string;
  password: string;
}

export interface MailSettings {
  imap: MailServer & { mailbox: string };
  smtp: MailServer;
  /** The address replies are sent from (and mail from which is never answered). */
  fromAddress: string;
  fromName: string | null;
}

/** One thing wrong with a connection's settings; `field` is the setting or secret name. */
export interface MailSettingsProblem {
  field: string;
  code: 'required' | 'invalid_value' | 'invalid_format' | 'too_big';
  message: string;
}

export type MailSettingsResult = { ok: true; settings: MailSettings } | { ok: false; problems: MailSettingsProblem[] };

// The default port follows the TLS mode, so that "implicit" alone means 993 / 465 and
// "starttls" alone means 143 / 587. With the default modes these are 993 (IMAP) and 587 (SMTP).
const DEFAULT_PORTS: Record<'imap' | 'smtp', Record<MailTls, number>> = {
  imap: { implicit: 993, starttls: 143, none: 143 },
  smtp: { implicit: 465, starttls: 587, none: 25 },
};
const DEFAULT_TLS: Record<'imap' | 'smtp', MailTls> = { imap: 'implicit', smtp: 'starttls' };

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.?$/i;
// Deliberately simple (RFC 5321 allows more): what a support mailbox's address looks like.
const EMAIL_ADDRESS = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z0-9-]{2,63}$/;
const USER_MAX = 320;
const PASSWORD_MAX = 1024;
const MAILBOX_MAX = 200;
const FROM_NAME_MAX = 100;

/** Checks a connection's settings and secrets; every problem at once, in words a person can act on. */
export function parseMailSettings(conn: Pick<ProviderConnection, 'settings' | 'secrets'>): MailSettingsResult {
  const problems: MailSettingsProblem[] = [];
  const settings = conn.settings ?? {};
  const secrets = conn.secrets ?? {};
  const text = (source: Record<string, string>, name: string): string => {
    const value = source[name];
    return typeof value === 'string' ? value.trim() : '';
  };

  const imapTls = tlsMode(text(settings, 'imap_tls'), 'imap', problems);
  const smtpTls = tlsMode(text(settings, 'smtp_tls'), 'smtp', problems);
  const imapUser = account(text(settings, 'imap_user'), 'imap_user', true, problems);
  const imapPassword = secret(secrets['imap_password'], 'imap_password', true, problems);
  // Most providers use one account for both; SMTP falls back to the IMAP credentials.
  const smtpUser = account(text(settings, 'smtp_user'), 'smtp_user', false, problems) || imapUser;
  const smtpPassword = secret(secrets['smtp_password'], 'smtp_password', false, problems) || imapPassword;

  const imap: MailServer & { mailbox: string } = {
    host: host(text(settings, 'imap_host'), 'imap_host', problems),
    port: port(text(settings, 'imap_port'), 'imap_port', DEFAULT_PORTS.imap[imapTls], problems),
    tls: imapTls,
    user: imapUser,
    password: imapPassword,
    mailbox: mailbox(text(settings, 'mailbox'), problems),
  };
  const smtp: MailServer = {
    host: host(text(settings, 'smtp_host'), 'smtp_host', problems),
    port: port(text(settings, 'smtp_port'), 'smtp_port', DEFAULT_PORTS.smtp[smtpTls], problems),
    tls: smtpTls,
    user: smtpUser,
    password: smtpPassword,
  };
  const fromAddress = address(text(settings, 'from_address'), problems);
  const fromName = displayName(text(settings, 'from_name'), problems);

  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, settings: { imap, smtp, fromAddress, fromName } };
}

/** The settings, or an error listing every problem (the names of fields only, never a secret). */
export function mailSettingsOrThrow(conn: Pick<ProviderConnection, 'settings' | 'secrets'>): MailSettings {
  const result = parseMailSettings(conn);
  if (!result.ok) throw new MailSettingsInvalid(result.problems);
  return result.settings;
}

/** The connection's settings do not describe a usable mailbox: nothing is tried until they are fixed. */
export class MailSettingsInvalid extends Error {
  constructor(readonly problems: MailSettingsProblem[]) {
    super(`The e-mail connection's settings are not valid: ${problems.map((p) => p.message).join('; ')}`);
    this.name = 'MailSettingsInvalid';
  }
}

function tlsMode(raw: string, server: 'imap' | 'smtp', problems: MailSettingsProblem[]): MailTls {
  if (raw === '') return DEFAULT_TLS[server];
  const value = raw.toLowerCase();
  if ((MAIL_TLS_MODES as readonly string[]).includes(value)) return value as MailTls;
  problems.push({ field: `${server}_tls`, code: 'invalid_value', message: `${server}_tls must be one of ${MAIL_TLS_MODES.join(', ')} (got "${clip(raw)}")` });
  return DEFAULT_TLS[server];
}

function host(raw: string, field: string, problems: MailSettingsProblem[]): string {
  if (raw === '') {
    problems.push({ field, code: 'required', message: `${field} is required` });
    return '';
  }
  // Any IP notation (127.1, 0x7f000001, [::1]) becomes its canonical form, classified as an address.
  const ip = parseHostAddress(raw.replace(/^\[(.*)\]$/, '$1'));
  if (ip) return ip;
  if (!HOST_NAME.test(raw)) {
    problems.push({ field, code: 'invalid_format', message: `${field} must be a host name or an IP address, without a scheme or port (got "${clip(raw)}")` });
    return '';
  }
  return raw.toLowerCase().replace(/\.$/, '');
}

function port(raw: string, field: string, fallback: number, problems: MailSettingsProblem[]): number {
  if (raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d{1,5}$/.test(raw) || n < 1 || n > 65535) {
    problems.push({ field, code: 'invalid_value', message: `${field} must be a port number from 1 to 65535 (got "${clip(raw)}")` });
    return fallback;
  }
  return n;
}

function account(raw: string, field: string, required: boolean, problems: MailSettingsProblem[]): string {
  if (raw === '') {
    if (required) problems.push({ field, code: 'required', message: `${field} is required` });
    return '';
  }
  if (raw.length > USER_MAX) problems.push({ field, code: 'too_big', message: `${field} must be at most ${USER_MAX} characters` });
  else if (hasControlCharacter(raw)) problems.push({ field, code: 'invalid_format', message: `${field} must not contain control characters` });
  return raw;
}

/** A password is taken as is (spaces may be part of it); only its presence and shape are checked. */
function secret(raw: string | undefined, field: string, required: boolean, problems: MailSettingsProblem[]): string {
  const value = typeof raw === 'string' ? raw : '';
  if (value === '') {
    if (required) problems.push({ field, code: 'required', message: `${field} is required` });
    return '';
  }
  if (value.length > PASSWORD_MAX) problems.push({ field, code: 'too_big', message: `${field} must be at most ${PASSWORD_MAX} characters` });
  else if (/[\r\n]/.test(value) || value.includes('\0')) problems.push({ field, code: 'invalid_format', message: `${field} must not contain line breaks or NUL` });
  return value;
}

function mailbox(raw: string, problems: MailSettingsProblem[]): string {
  if (raw === '') return 'INBOX';
  if (raw.length > MAILBOX_MAX) problems.push({ field: 'mailbox', code: 'too_big', message: `mailbox must be at most ${MAILBOX_MAX} characters` });
  else if (hasControlCharacter(raw)) problems.push({ field: 'mailbox', code: 'invalid_format', message: 'mailbox must not contain control characters' });
  return raw;
}

function address(raw: string, problems: MailSettingsProblem[]): string {
  if (raw === '') {
    problems.push({ field: 'from_address', code: 'required', message: 'from_address is required' });
    return '';
  }
  if (raw.length > 254 || !EMAIL_ADDRESS.test(raw)) {
    problems.push({ field: 'from_address', code: 'invalid_format', message: `from_address must be an e-mail address such as support@example.com (got "${clip(raw)}")` });
    return '';
  }
  return raw;
}

function displayName(raw: string, problems: MailSettingsProblem[]): string | null {
  if (raw === '') return null;
  if ([...raw].length > FROM_NAME_MAX) problems.push({ field: 'from_name', code: 'too_big', message: `from_name must be at most ${FROM_NAME_MAX} characters` });
  else if (hasControlCharacter(raw)) problems.push({ field: 'from_name', code: 'invalid_format', message: 'from_name must not contain control characters' });
  return raw;
}

/** A value as quoted back in a message: short, one line. */
function clip(value: string): string {
  const line = [...value.slice(0, 200)].map((ch) => (isControl(ch) ? ' ' : ch)).join('');
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}

function isControl(ch: string): boolean {
  const code = ch.codePointAt(0) ?? 0;
  return code < 0x20 || code === 0x7f;
}

function hasControlCharacter(value: string): boolean {
  for (const ch of value) if (isControl(ch)) return true;
  return false;
}

/** `text` with every secret of the connection replaced (a server may echo what it was sent). */
export function redactSecrets(text: string, conn: Pick<ProviderConnection, 'secrets'>): string {
  let out = text;
  for (const secret of Object.values(conn.secrets ?? {})) {
    if (typeof secret === 'string' && secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The outbound guard for mail servers
// ---------------------------------------------------------------------------------------------

/** Where to open the socket: an address that passed the guard, and the name TLS checks the certificate against. */
export interface MailTarget {
  address: string;
  /** The host name for SNI and certificate checks; undefined when the setting is an IP literal. */
  servername: string | undefined;
}

/** `blocked`: the address rules refuse it (retrying will not help); otherwise the name did not resolve. */
export type MailTargetResult = { ok: true; target: MailTarget } | { ok: false; blocked: boolean; reason: string };

/**
 * Resolves a mail server's host through the outbound guard (the same address rules as every
 * outbound HTTP request: no loopback, private, link-local … unless OUTBOUND_ALLOW_CIDRS allows
 * them) and returns the one address to connect to. Connecting to that address rather than the
 * name means DNS cannot change the answer between the check and the connection (rebinding).
 * Ports are not checked against the policy's allowedPorts: those are HTTP ports, and a mail
 * server's port is part of the connection's settings.
 */
export async function resolveMailHost(hostname: string, policy: Pick<OutboundPolicy, 'allowCidrs'>, resolver?: Resolver): Promise<MailTargetResult> {
  const ip = isIP(hostname) ? hostname : parseHostAddress(hostname);
  if (ip) {
    const verdict = classifyAddress(ip, policy);
    return verdict.blocked ? { ok: false, blocked: true, reason: verdict.reason } : { ok: true, target: { address: ip, servername: undefined } };
  }
  if (isInternalHostname(hostname)) return { ok: false, blocked: true, reason: `${hostname} is an internal host name` };
  const resolved = await resolveAndCheck(hostname, policy, resolver);
  if (!resolved.ok) return { ok: false, blocked: resolved.code === 'blocked', reason: resolved.reason };
  const first = resolved.addresses.find((a) => a.family === 4) ?? resolved.addresses[0];
  return { ok: true, target: { address: first.address, servername: hostname } };
}
