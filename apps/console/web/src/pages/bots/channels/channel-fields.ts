import type { ChannelKind, ChannelStatus } from '../../../api/channels';

/*
 * What the forms of a channel connection ask for, per kind (issue 35). The names are those of
 * CHANNEL_FIELDS in libs/contracts/src/channels.ts, copied because that file brings
 * class-validator with it, which stays out of the browser bundle; e2e/console-channels checks
 * that the dialog asks for exactly the contract's fields of every kind. A name ending in `?` is
 * optional.
 */
const FIELDS: Record<ChannelKind, { settings: readonly string[]; secrets: readonly string[] }> = {
  email: {
    settings: ['imap_host', 'imap_port?', 'imap_tls?', 'imap_user', 'mailbox?', 'smtp_host', 'smtp_port?', 'smtp_tls?', 'smtp_user?', 'from_address', 'from_name?'],
    secrets: ['imap_password', 'smtp_password?'],
  },
  whatsapp: { settings: ['phone_number_id', 'graph_version?'], secrets: ['access_token', 'app_secret', 'verify_token'] },
  telegram: { settings: [], secrets: ['bot_token', 'webhook_secret'] },
  slack: { settings: ['team_id?', 'bot_user_id?'], secrets: ['bot_token', 'signing_secret'] },
};

/** In the order the kind picker offers them. */
export const CHANNEL_KIND_OPTIONS: { value: ChannelKind; label: string }[] = [
  { value: 'email', label: 'E-mail' },
  { value: 'whatsapp', label: 'WhatsApp' },
  { value: 'telegram', label: 'Telegram' },
  { value: 'slack', label: 'Slack' },
];

export function channelKindName(kind: ChannelKind): string {
  return CHANNEL_KIND_OPTIONS.find((k) => k.value === kind)?.label ?? kind;
}

/** A status in words (the badge's colour and icon only repeat them), and its badge's modifier. */
export const CHANNEL_STATUS: Record<ChannelStatus, { label: string; badge: string; hint: string }> = {
  pending: { label: 'Pending', badge: 'pending', hint: 'No message yet.' },
  active: { label: 'Active', badge: 'succeeded', hint: 'The last exchange worked.' },
  error: { label: 'Error', badge: 'failed', hint: 'The last receive or send failed.' },
  disabled: { label: 'Disabled', badge: 'neutral', hint: 'Turned off: messages are refused.' },
};

/** One input of a connection's form. */
export interface ChannelField {
  name: string;
  label: string;
  optional: boolean;
  /** A credential: a password input, write-only. */
  secret: boolean;
  /** A port: a number input. */
  port: boolean;
  description?: string;
}

const LABELS: Record<string, { label: string; description?: string }> = {
  imap_host: { label: 'IMAP host', description: 'The server the mailbox is read from, e.g. imap.example.com.' },
  imap_port: { label: 'IMAP port', description: 'Empty: 993 with implicit TLS, 143 with STARTTLS.' },
  imap_tls: { label: 'IMAP TLS', description: 'implicit, starttls or none (a trusted network only). Empty: implicit.' },
  imap_user: { label: 'IMAP user' },
  mailbox: { label: 'Mailbox', description: 'The folder to read. Empty: INBOX.' },
  smtp_host: { label: 'SMTP host', description: 'The server replies are sent through, e.g. smtp.example.com.' },
  smtp_port: { label: 'SMTP port', description: 'Empty: 587 with STARTTLS, 465 with implicit TLS.' },
  smtp_tls: { label: 'SMTP TLS', description: 'implicit, starttls or none (a trusted network only). Empty: starttls.' },
  smtp_user: { label: 'SMTP user', description: 'Empty: the IMAP user.' },
  from_address: { label: 'From address', description: 'The address replies come from.' },
  from_name: { label: 'From name', description: 'The name replies come from.' },
  imap_password: { label: 'IMAP password' },
  smtp_password: { label: 'SMTP password', description: 'Empty: the IMAP password.' },
  phone_number_id: { label: 'Phone number ID', description: "The WhatsApp Business phone number's ID (Meta's App Dashboard, WhatsApp, API Setup)." },
  graph_version: { label: 'Graph API version', description: 'e.g. v21.0. Empty: the version this server was built with.' },
  access_token: { label: 'Access token', description: "A system user's token with the whatsapp_business_messaging permission." },
  app_secret: { label: 'App secret', description: "The Meta app's secret: it checks the signature of every notification." },
  verify_token: { label: 'Verify token', description: 'A secret you choose, given to Meta with the webhook URL.' },
  bot_token: { label: 'Bot token' },
  webhook_secret: { label: 'Webhook secret', description: "A secret you choose (letters, digits, _ and -), given to Telegram's setWebhook as secret_token with the webhook URL." },
  team_id: { label: 'Team ID', description: 'Only events of this Slack workspace are answered. Empty: any.' },
  bot_user_id: { label: 'Bot user ID', description: "The bot's own user: its messages are never answered. Empty: taken from each event." },
  signing_secret: { label: 'Signing secret', description: "The Slack app's signing secret: it checks every request." },
};

function fieldOf(spec: string, secret: boolean): ChannelField {
  const optional = spec.endsWith('?');
  const name = optional ? spec.slice(0, -1) : spec;
  const words = LABELS[name] ?? { label: name };
  return { name, optional, secret, port: name.endsWith('_port'), label: words.label, ...(words.description ? { description: words.description } : {}) };
}

/** A kind's settings, then its credentials, in the contract's order. */
export function channelFields(kind: ChannelKind): { settings: ChannelField[]; secrets: ChannelField[] } {
  return { settings: FIELDS[kind].settings.map((s) => fieldOf(s, false)), secrets: FIELDS[kind].secrets.map((s) => fieldOf(s, true)) };
}

/** The label of a stored credential's name (`secrets_set`), for people. */
export function secretLabel(name: string): string {
  return LABELS[name]?.label ?? name;
}

/** The non-empty values of a form's inputs: an empty one is left out (an optional setting unset, a credential kept). */
export function filled(values: Record<string, string>, fields: ChannelField[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fields) {
    const v = f.secret ? (values[f.name] ?? '') : (values[f.name] ?? '').trim();
    if (v !== '') out[f.name] = v;
  }
  return out;
}
