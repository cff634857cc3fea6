import 'reflect-metadata';
import { BOOKING_ACTIONS, BOOKING_STATUSES, BookingAction, BookingStatus } from '@sa/contracts';
import { transition } from './booking-rules';

describe('booking transitions (spec part 3)', () => {
  const expected: Record<BookingStatus, Record<BookingAction, BookingStatus | null>> = {
    pending: { confirm: 'confirmed', reject: 'rejected', cancel: 'cancelled', reschedule: 'pending' },
    confirmed: { confirm: null, reject: null, cancel: 'cancelled', reschedule: 'confirmed' },
    rejected: { confirm: null, reject: null, cancel: null, reschedule: null },
    cancelled: { confirm: null, reject: null, cancel: null, reschedule: null },
  };

  for (const from of BOOKING_STATUSES) {
    for (const action of BOOKING_ACTIONS) {
      const next = expected[from][action];
      it(`${from} + ${action} → ${next ?? '409'}`, () => {
        const r = transition(from, action);
        if (next) expect(r).toEqual({ ok: true, next });
        else {
          expect(r.ok).toBe(false);
          const reason = (r as { reason: string }).reason;
          expect(reason).toMatch(action === 'confirm' || action === 'reject' ? /already decided/ : /no longer active/);
          expect(reason).toContain(from);
        }
      });
    }
  }
});
