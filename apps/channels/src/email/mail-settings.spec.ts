import { Resolver } from '@sa/net-guard';
import { MailSettingsInvalid, mailSettingsOrThrow, parseMailSettings, redactSecrets, resolveMailHost } from './mail-settings';

const minimal = {
  settings: { imap_host: 'imap.example.com', imap_user: 'support@example.com', smtp_host: 'smtp.example.com', from_address: 'support@example.com' },
  secrets: { imap_password: 'imap-secret' },
};

describe('parseMailSettings', () => {
  it('fills the defaults: IMAP implicit TLS on 993, SMTP STARTTLS on 587, INBOX, SMTP credentials from IMAP', () => {
    expect(parseMailSettings(minimal)).toEqual({
      ok: true,
      settings: {
        imap: { host: 'imap.example.com', port: 993, tls: 'implicit', user: 'support@example.com', password: 'imap-secret', mailbox: 'INBOX' },
        smtp: { host: 'smtp.example.com', port: 587, tls: 'starttls', user: 'support@example.com', password: 'imap-secret' },
        fromAddress: 'support@example.com',
        fromName: null,
      },
    });
  });

  it('takes every setting given, and derives a missing port from the TLS mode', () => {
    const result = parseMailSettings({
      settings: {
        ...minimal.settings,
        imap_tls: 'STARTTLS',
        smtp_tls: 'implicit',
        smtp_user: 'mailer',
        mailbox: 'Support',
        from_name: 'Shop Support',
        imap_host: 'IMAP.Example.com.',
      },
      secrets: { imap_password: 'imap-secret', smtp_password: 'smtp-secret' },
    });
    expect(result).toMatchObject({
      ok: true,
      settings: {
        imap: { host: 'imap.example.com', port: 143, tls: 'starttls', mailbox: 'Support' },
        smtp: { port: 465, tls: 'implicit', user: 'mailer', password: 'smtp-secret' },
        fromName: 'Shop Support',
      },
    });
  });

  it('canonicalizes IP literals in any notation', () => {
    const result = parseMailSettings({ ...minimal, settings: { ...minimal.settings, imap_host: '[::1]', smtp_host: '0x7f.1' } });
    expect(result).toMatchObject({ ok: true, settings: { imap: { host: '::1' }, smtp: { host: '127.0.0.1' } } });
  });

  it('lists every problem at once, naming fields and never a secret', () => {
    const result = parseMailSettings({
      settings: { imap_host: 'https://imap.example.com', imap_port: '99999', imap_tls: 'ssl', smtp_port: 'abc', from_address: 'not an address', from_name: 'A\r\nBcc: x' },
      secrets: { smtp_password: 'zq-secret\nvalue' },
    });
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    expect(problems.map((p) => [p.field, p.code])).toEqual([
      ['imap_tls', 'invalid_value'],
      ['imap_user', 'required'],
      ['imap_password', 'required'],
      ['smtp_password', 'invalid_format'],
      ['imap_host', 'invalid_format'],
      ['imap_port', 'invalid_value'],
      ['smtp_host', 'required'],
      ['smtp_port', 'invalid_value'],
      ['from_address', 'invalid_format'],
      ['from_name', 'invalid_format'],
    ]);
    expect(problems.find((p) => p.field === 'imap_tls')?.message).toBe('imap_tls must be one of implicit, starttls, none (got "ssl")');
    expect(JSON.stringify(problems)).not.toContain('zq-secret');
  });

  it('throws MailSettingsInvalid with the problems', () => {
    expect(() => mailSettingsOrThrow({ settings: {}, secrets: {} })).toThrow(MailSettingsInvalid);
    expect(() => mailSettingsOrThrow({ settings: {}, secrets: {} })).toThrow(/imap_host is required; .*from_address is required/);
  });
});

describe('resolveMailHost', () => {
  const resolver: Resolver = async (name) => {
    if (name === 'mail.example.com') return [{ address: '2001:4860:4860::8888', family: 6 }, { address: '93.184.215.14', family: 4 }];
    if (name === 'rebind.example.com') return [{ address: '93.184.215.14', family: 4 }, { address: '10.0.0.5', family: 4 }];
    throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  };
  const policy = { allowCidrs: [] };

  it('returns one checked address (IPv4 first) and the name for TLS', async () => {
    expect(await resolveMailHost('mail.example.com', policy, resolver)).toEqual({ ok: true, target: { address: '93.184.215.14', servername: 'mail.example.com' } });
  });

  it('refuses internal names, blocked literals and names with any blocked address', async () => {
    expect(await resolveMailHost('localhost', policy, resolver)).toEqual({ ok: false, blocked: true, reason: 'localhost is an internal host name' });
    expect(await resolveMailHost('127.0.0.1', policy, resolver)).toMatchObject({ ok: false, blocked: true });
    expect(await resolveMailHost('169.254.169.254', policy, resolver)).toMatchObject({ ok: false, blocked: true });
    expect(await resolveMailHost('rebind.example.com', policy, resolver)).toMatchObject({ ok: false, blocked: true, reason: expect.stringContaining('10.0.0.5') });
  });

  it('allows a literal the policy allows, and says when a name does not resolve', async () => {
    expect(await resolveMailHost('127.0.0.1', { allowCidrs: ['127.0.0.1/32'] }, resolver)).toEqual({ ok: true, target: { address: '127.0.0.1', servername: undefined } });
    expect(await resolveMailHost('nowhere.example.com', policy, resolver)).toEqual({ ok: false, blocked: false, reason: 'could not resolve nowhere.example.com (ENOTFOUND)' });
  });
});

describe('redactSecrets', () => {
  it('replaces every secret of the connection', () => {
    expect(redactSecrets('LOGIN bot hunter22 failed, hunter22', { secrets: { imap_password: 'hunter22', smtp_password: '' } })).toBe('LOGIN bot [redacted] failed, [redacted]');
  });
});
