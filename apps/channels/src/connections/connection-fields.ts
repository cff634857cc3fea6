import { CHANNEL_FIELDS, CHANNEL_SECRET_MAX, CHANNEL_SETTING_MAX, ChannelKind, ValidationIssue } from '@sa/contracts';

/** A field of a kind: its name and whether it may be left out (`?` in CHANNEL_FIELDS). */
function fieldsOf(list: readonly string[]): { name: string; optional: boolean }[] {
  return list.map((f) => ({ name: f.replace(/\?$/, ''), optional: f.endsWith('?') }));
}

const ONE_LINE = /^[^\r\n\0]*$/;
const PORT = /^\d{1,5}$/;
const TLS_MODES = ['implicit', 'starttls', 'none'];
const PORT_SETTINGS = new Set(['imap_port', 'smtp_port']);
const TLS_SETTINGS = new Set(['imap_tls', 'smtp_tls']);
/** Values a provider restricts: Telegram's secret_token (setWebhook), WhatsApp's ids and Graph version, Slack's ids. */
const PATTERNS: Partial<Record<ChannelKind, Record<string, { re: RegExp; says: string }>>> = {
  telegram: { webhook_secret: { re: /^[A-Za-z0-9_-]{1,256}$/, says: '1 to 256 of A-Z, a-z, 0-9, _ and - (Telegram refuses others)' } },
  whatsapp: { phone_number_id: { re: /^\d{1,30}$/, says: 'the digits of the Phone number ID' }, graph_version: { re: /^v\d{1,3}\.\d{1,3}$/, says: 'a Graph API version such as v21.0' } },
  slack: { team_id: { re: /^[A-Z0-9]{1,30}$/, says: 'a Slack team id such as T0123ABCD' }, bot_user_id: { re: /^[A-Z0-9]{1,30}$/, says: 'a Slack user id such as U0123ABCD' } },
};

/**
 * The issues of a connection's settings and secrets for its kind: unknown names, values too long
 * or on several lines, required ones missing (`complete`: a new connection, or the result of an
 * update with the stored secrets counted as present). Values are checked, never echoed.
 */
export function fieldIssues(
  kind: ChannelKind,
  settings: Record<string, string>,
  secrets: Record<string, string>,
  opts: { complete: boolean; storedSecrets?: readonly string[] },
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const spec = CHANNEL_FIELDS[kind];
  const check = (group: 'settings' | 'secrets', given: Record<string, string>, allowed: { name: string; optional: boolean }[], max: number, stored: readonly string[]) => {
    const names = new Set(allowed.map((f) => f.name));
    for (const [name, value] of Object.entries(given)) {
      if (!names.has(name)) {
        issues.push({ code: 'unrecognized_keys', path: ['body', group, name], message: `A ${kind} connection takes no ${group === 'settings' ? 'setting' : 'secret'} "${name}" (it takes: ${[...names].join(', ') || 'none'})` });
        continue;
      }
      if (value.length > max) issues.push({ code: 'too_big', path: ['body', group, name], message: `${name} is longer than ${max} characters` });
      else if (!ONE_LINE.test(value)) issues.push({ code: 'invalid_format', path: ['body', group, name], message: `${name} must be one line` });
      else if (value.trim() === '') issues.push({ code: 'too_small', path: ['body', group, name], message: `${name} is empty` });
      else if (PORT_SETTINGS.has(name) && !(PORT.test(value) && Number(value) >= 1 && Number(value) <= 65535)) issues.push({ code: 'invalid_format', path: ['body', group, name], message: `${name} must be a port number (1 to 65535)` });
      else if (TLS_SETTINGS.has(name) && !TLS_MODES.includes(value)) issues.push({ code: 'invalid_value', path: ['body', group, name], message: `${name} must be one of ${TLS_MODES.join(', ')}` });
      else if (PATTERNS[kind]?.[name] && !PATTERNS[kind][name].re.test(value)) issues.push({ code: 'invalid_format', path: ['body', group, name], message: `${name} must be ${PATTERNS[kind][name].says}` });
    }
    if (!opts.complete) return;
    for (const f of allowed) {
      if (!f.optional && !(f.name in given) && !stored.includes(f.name)) issues.push({ code: 'required', path: ['body', group, f.name], message: `A ${kind} connection needs ${f.name}` });
    }
  };
  check('settings', settings, fieldsOf(spec.settings), CHANNEL_SETTING_MAX, []);
  check('secrets', secrets, fieldsOf(spec.secrets), CHANNEL_SECRET_MAX, opts.storedSecrets ?? []);
  return issues;
}
