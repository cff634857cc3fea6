import type { EmailKind } from '../bookings/booking-rules';

export interface MailBooking {
  name: string;
  requested_slot: Date | string | null;
  time_zone: string | null;
}

export interface MailContent {
  subject: string;
  text: string;
}

/**
 * A slot as the visitor reads it: in the visitor's time zone when known and valid, else UTC,
 * e.g. "Monday, 5 January 2027 at 15:30 GMT+1 (Europe/Berlin)".
 */
export function formatSlot(slot: Date | string, timeZone: string | null): string {
  const at = slot instanceof Date ? slot : new Date(slot);
  const zone = timeZone && isValidTimeZone(timeZone) ? timeZone : 'UTC';
  const text = new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    weekday: 'long',
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  }).format(at);
  return `${text} (${zone})`;
}

export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The visitor e-mail of one state change (plain text). */
export function composeMail(kind: EmailKind, b: MailBooking, comment?: string | null): MailContent {
  const hello = `Hello ${b.name},`;
  const when = b.requested_slot ? formatSlot(b.requested_slot, b.time_zone) : null;
  const slotLine = when ? ` for ${when}` : '';
  const note = comment && comment.trim() ? comment.trim() : null;
  const sign = 'Kind regards,\nThe support team';
  switch (kind) {
    case 'confirm':
      return { subject: 'Your booking is confirmed', text: [hello, '', `Your booking${slotLine} is confirmed. We look forward to seeing you.`, '', sign].join('\n') };
    case 'reject':
      return {
        subject: 'Your booking request was declined',
        text: [hello, '', `We are sorry: your booking request${slotLine} was declined.`, ...(note ? ['', `Comment: ${note}`] : []), '', sign].join('\n'),
      };
    case 'cancel':
      return {
        subject: 'Your booking was cancelled',
        text: [hello, '', `Your booking${slotLine} was cancelled.`, ...(note ? ['', `Comment: ${note}`] : []), '', sign].join('\n'),
      };
    case 'reschedule':
      return {
        subject: 'Your booking was rescheduled',
        text: [hello, '', `Your booking was moved to a new time: ${when ?? 'to be agreed'}.`, '', sign].join('\n'),
      };
  }
}
