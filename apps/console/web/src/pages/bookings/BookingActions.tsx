import { useState } from 'react';
import { useUpdateBooking } from '../../api/records';
import type { Booking } from '../../api/types';
import { ConfirmButton } from '../../components/Dialogs';
import { TextAreaInput, TextInput } from '../../components/Fields';

/** `2026-12-01T10:00` (a datetime-local value, the browser's time zone) with the browser's UTC offset. */
export function withLocalOffset(local: string): string {
  const date = new Date(local);
  if (Number.isNaN(date.getTime())) return local;
  const minutes = -date.getTimezoneOffset();
  const sign = minutes >= 0 ? '+' : '-';
  const abs = Math.abs(minutes);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${local.length === 16 ? `${local}:00` : local}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

const COMMENT_HELP = 'Included in the e-mail to the visitor.';

/**
 * Confirm, Reject, Reschedule and Cancel for one booking (owners and admins), each asking first;
 * they send exactly PATCH /v1/bookings/{id}'s body, and a refusal (409: already decided, slot
 * taken, no longer active) stays in the dialog with the service's message.
 */
export function BookingActions({ workspaceId, booking }: { workspaceId: string; booking: Booking }) {
  const update = useUpdateBooking(workspaceId);
  const [rejectComment, setRejectComment] = useState('');
  const [cancelComment, setCancelComment] = useState('');
  const [slot, setSlot] = useState('');
  const who = `booking-${booking.id}-visitor`;
  const send = (body: Parameters<typeof update.mutateAsync>[0]['body']) => update.mutateAsync({ bookingId: booking.id, body });
  const refreshOnClose = (open: boolean) => {
    if (!open && update.isError) void update.refresh();
  };
  const pending = booking.status === 'pending';
  const active = pending || booking.status === 'confirmed';
  if (!active) return <span className="muted">—</span>;
  return (
    <div className="table__actions">
      {pending ? (
        <ConfirmButton trigger="Confirm" title={`Confirm ${booking.name}'s booking?`} tone="default" triggerVariant="secondary" describedBy={who} onOpenChange={refreshOnClose} onConfirm={() => send({ action: 'confirm' })}>
          <p>The slot is blocked for this bot and the visitor gets a confirmation e-mail.</p>
        </ConfirmButton>
      ) : null}
      {pending ? (
        <ConfirmButton trigger="Reject" title={`Reject ${booking.name}'s booking?`} describedBy={who} onOpenChange={refreshOnClose} onConfirm={() => send({ action: 'reject', ...(rejectComment.trim() ? { rejectionComment: rejectComment } : {}) })}>
          <TextAreaInput label="Comment" name="rejectionComment" value={rejectComment} onChange={setRejectComment} rows={3} maxLength={500} description={COMMENT_HELP} />
        </ConfirmButton>
      ) : null}
      <ConfirmButton trigger="Reschedule" title={`Reschedule ${booking.name}'s booking`} tone="default" triggerVariant="secondary" describedBy={who} onOpenChange={refreshOnClose} onConfirm={() => send({ action: 'reschedule', requestedSlot: withLocalOffset(slot) })}>
        <TextInput label="New time" type="datetime-local" name="requestedSlot" value={slot} onChange={setSlot} isRequired description="In your time zone. The visitor is e-mailed the new time." />
      </ConfirmButton>
      <ConfirmButton trigger="Cancel" title={`Cancel ${booking.name}'s booking?`} dismiss="Keep it" confirm="Cancel booking" describedBy={who} onOpenChange={refreshOnClose} onConfirm={() => send({ action: 'cancel', ...(cancelComment.trim() ? { cancelComment } : {}) })}>
        <TextAreaInput label="Comment" name="cancelComment" value={cancelComment} onChange={setCancelComment} rows={3} maxLength={500} description={COMMENT_HELP} />
      </ConfirmButton>
    </div>
  );
}
