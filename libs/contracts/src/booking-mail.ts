import { IsIn, IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';

export const EMAIL_STATUSES = ['pending', 'sent', 'failed'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];
export const EMAILS_LIST_DEFAULT = 100;
export const EMAILS_LIST_MAX = 1000;

/**
 * bookings.email.list: the e-mails of the caller's workspace (the bookings service's outbox:
 * visitor e-mails of bookings, and invitations to it, whose body is erased once sent), newest first; pending ones are not sent yet (or never, without SMTP_URL). For
 * operators (the admin CLI's `mail list`); no public route.
 */
export class ListEmailsRequest {
  @IsOptional() @IsUUID('all') bookingId?: string;
  @IsOptional() @IsIn(EMAIL_STATUSES) status?: EmailStatus;
  @IsOptional() @IsInt() @Min(1) @Max(EMAILS_LIST_MAX) limit?: number;
}

export interface EmailView {
  id: string;
  workspace_id: string;
  /** Null for an e-mail to a person (an invitation: kind `invitation`). */
  booking_id: string | null;
  kind: string;
  to: string;
  subject: string;
  body_text: string;
  status: EmailStatus;
  attempts: number;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}
