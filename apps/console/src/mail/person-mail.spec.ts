import { validateDto } from '@sa/messaging';
import { SendPersonEmailRequest } from '@sa/contracts';
import { handoffDigestEmail, handoffEmail, invitationEmail, passwordResetEmail } from './person-mail';

describe('person e-mails', () => {
  const token = 'A'.repeat(43);

  it('an invitation: the link in the fragment, the workspace on one line, valid for bookings.email.send', () => {
    const mail = invitationEmail({
      publicUrl: 'https://console.example.com',
      to: 'ada@example.com',
      token,
      workspaceId: '6f1c3c5e-3f0a-4d3e-9a55-3b8a1d2c4e5f',
      workspaceName: 'Acme\r\nBcc: victim@example.com',
      role: 'admin',
      invitedBy: 'Olga',
      expiresAt: '2030-01-01T00:00:00.000Z',
    });
    expect(mail.subject).toBe('You are invited to Acme Bcc: victim@example.com');
    expect(mail.body_text).toContain(`https://console.example.com/accept-invitation#token=${token}`);
    expect(mail.body_text).toContain('as admin');
    expect(() => validateDto(SendPersonEmailRequest, mail)).not.toThrow();
  });

  it('a password reset: the link in the fragment, no workspace', () => {
    const mail = passwordResetEmail({ publicUrl: 'http://127.0.0.1:3002', to: 'ada@example.com', token, ttlSeconds: 3600 });
    expect(mail).toMatchObject({ kind: 'password_reset', to: 'ada@example.com', workspace_id: null });
    expect(mail.body_text).toContain(`http://127.0.0.1:3002/reset-password#token=${token}`);
    expect(mail.body_text).toContain('60 minutes');
    expect(() => validateDto(SendPersonEmailRequest, mail)).not.toThrow();
  });

  it("a handoff: the Handoff page's link, the visitor's message on one line, valid for bookings.email.send", () => {
    const mail = handoffEmail({
      publicUrl: 'https://console.example.com',
      to: 'ada@example.com',
      workspaceId: '6f1c3c5e-3f0a-4d3e-9a55-3b8a1d2c4e5f',
      workspaceName: 'Acme',
      kind: 'explicit',
      question: 'I want a human\r\nBcc: x@example.com',
    });
    expect(mail).toMatchObject({ kind: 'handoff', to: 'ada@example.com', workspace_id: '6f1c3c5e-3f0a-4d3e-9a55-3b8a1d2c4e5f', subject: 'A visitor asks for a person (Acme)' });
    expect(mail.body_text).toContain('https://console.example.com/w/6f1c3c5e-3f0a-4d3e-9a55-3b8a1d2c4e5f/handoff');
    expect(mail.body_text).toContain('Their message: "I want a human Bcc: x@example.com"');
    expect(mail.body_text).toContain('A visitor asked to talk to a person');
    expect(handoffEmail({ ...mail, publicUrl: 'http://c', workspaceId: 'w', workspaceName: 'A', kind: 'detected', question: null }).body_text).not.toContain('Their message');
    expect(() => validateDto(SendPersonEmailRequest, mail)).not.toThrow();
  });
});

describe('handoffDigestEmail (issue 30)', () => {
  const base = { publicUrl: 'https://console.example.com', to: 'ada@example.com', workspaceId: 'w1', workspaceName: 'Acme\r\nBcc: x@evil.example' };

  it('is the single handoff e-mail for one conversation', () => {
    const one = handoffDigestEmail({ ...base, items: [{ kind: 'explicit', question: 'Can I talk to someone?' }], total: 1 });
    expect(one.subject).toBe('A visitor asks for a person (Acme Bcc: x@evil.example)');
    expect(one.body_text).toContain('Their message: "Can I talk to someone?"');
  });

  it('lists the waiting conversations on one line each, counts the rest, and keeps visitor text out of headers', () => {
    const mail = handoffDigestEmail({ ...base, items: [{ kind: 'explicit', question: 'Line one\nBcc: y@evil.example' }, { kind: 'detected', question: null }], total: 25 });
    expect(mail.subject).toBe('25 visitors ask for a person (Acme Bcc: x@evil.example)');
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.body_text).toContain('1. "Line one Bcc: y@evil.example" (asked for a person)');
    expect(mail.body_text).toContain('2. (no message) (the bot noticed they need a person)');
    expect(mail.body_text).toContain('… and 23 more.');
    expect(mail.body_text).toContain('https://console.example.com/w/w1/handoff');
    expect(mail.body_text).not.toMatch(/\nBcc:/);
  });
});
