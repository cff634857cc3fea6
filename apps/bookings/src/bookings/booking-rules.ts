import type { BookingAction, BookingStatus } from '@sa/contracts';

export type EmailKind = 'confirm' | 'reject' | 'cancel' | 'reschedule';

export type TransitionResult = { ok: true; next: BookingStatus } | { ok: false; reason: string };

/**
 * Spec part 3, booking rules 1–3. confirm and reject apply only to pending bookings ("already
 * decided" otherwise); cancel and reschedule only to pending or confirmed ones ("no longer
 * active" otherwise). A reschedule keeps the status (docs/decisions/leads-bookings.md): a pending booking stays
 * pending, a confirmed one stays confirmed and holds the new slot instead of the old one.
 */
export function transition(from: BookingStatus, action: BookingAction): TransitionResult {
  switch (action) {
    case 'confirm':
    case 'reject':
      if (from === 'pending') return { ok: true, next: action === 'confirm' ? 'confirmed' : 'rejected' };
      return { ok: false, reason: `The booking was already decided (it is ${from}); only pending bookings can be ${action === 'confirm' ? 'confirmed' : 'rejected'}` };
    case 'cancel':
    case 'reschedule':
      if (from === 'pending' || from === 'confirmed') return { ok: true, next: action === 'cancel' ? 'cancelled' : from };
      return { ok: false, reason: `The booking is no longer active (it is ${from}); only pending or confirmed bookings can be ${action === 'cancel' ? 'cancelled' : 'rescheduled'}` };
  }
}
