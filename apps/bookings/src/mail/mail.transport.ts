import { createTransport } from 'nodemailer';

export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  messageId: string;
}

/** What the mail worker needs of nodemailer (a fake in tests). */
export interface MailTransport {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** nodemailer's SMTP transport for an smtp:// or smtps:// URL. */
export function smtpTransport(url: string): MailTransport {
  const t = createTransport(url, { connectionTimeout: 10000, greetingTimeout: 10000, socketTimeout: 20000 } as never);
  return {
    send: async (msg) => {
      await t.sendMail({ from: msg.from, to: msg.to, subject: msg.subject, text: msg.text, messageId: msg.messageId });
    },
    close: () => t.close(),
  };
}
