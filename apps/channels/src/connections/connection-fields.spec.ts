import 'reflect-metadata';
import { fieldIssues } from './connection-fields';

// What a connection's settings and secrets must be, per kind, before anything is stored.
describe('fieldIssues', () => {
  it('accepts a complete Telegram connection and refuses unknown names, missing secrets and values Telegram refuses', () => {
    expect(fieldIssues('telegram', {}, { bot_token: '123:abc', webhook_secret: 'ok_Secret-1' }, { complete: true })).toEqual([]);
    const issues = fieldIssues('telegram', { chat: 'x' }, { webhook_secret: 'has space' }, { complete: true });
    expect(issues.map((i) => [i.code, i.path.join('.')])).toEqual([
      ['unrecognized_keys', 'body.settings.chat'],
      ['invalid_format', 'body.secrets.webhook_secret'],
      ['required', 'body.secrets.bot_token'],
    ]);
    // A message never echoes the value.
    expect(JSON.stringify(issues)).not.toContain('has space');
  });

  it('counts stored secrets as present on an update, and refuses multi-line, empty and oversized values', () => {
    expect(fieldIssues('slack', {}, {}, { complete: true, storedSecrets: ['bot_token', 'signing_secret'] })).toEqual([]);
    const issues = fieldIssues('slack', { team_id: 't-lower' }, { bot_token: 'a\nb', signing_secret: ' ' }, { complete: true });
    expect(issues.map((i) => [i.code, i.path.at(-1)])).toEqual([
      ['invalid_format', 'team_id'],
      ['invalid_format', 'bot_token'],
      ['too_small', 'signing_secret'],
    ]);
    expect(fieldIssues('whatsapp', { phone_number_id: '1'.repeat(501) }, {}, { complete: false })[0]).toMatchObject({ code: 'too_big' });
  });

  it('checks e-mail ports and TLS modes', () => {
    const issues = fieldIssues('email', { imap_host: 'imap.example.com', imap_user: 'bot', imap_port: '99999', imap_tls: 'ssl', smtp_host: 'smtp.example.com', from_address: 'bot@example.com' }, { imap_password: 'pw' }, { complete: true });
    expect(issues.map((i) => [i.code, i.path.at(-1)])).toEqual([
      ['invalid_format', 'imap_port'],
      ['invalid_value', 'imap_tls'],
    ]);
  });
});
