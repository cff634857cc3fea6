import { useSearchParams } from 'react-router';
import { useBookings } from '../../api/records';
import { useBots } from '../../api/workspace';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { DateTime } from '../../components/DateTime';
import { SelectInput } from '../../components/Fields';
import { ErrorMessage, Loading } from '../../components/Messages';
import { Page, Section } from '../../components/Page';
import { botName } from '../../lib/bots';
import { capitalise } from '../../lib/format';
import { BOOKING_STATUS_OPTIONS } from '../../lib/records';
import { BookingActions } from './BookingActions';

/** /w/:ws/bookings: bookings by status; owners and admins confirm, reject, reschedule or cancel. */
export function BookingsPage() {
  const { workspace, canManage } = useCurrentWorkspace();
  const [params, setParams] = useSearchParams();
  const status = params.get('status') ?? '';
  const bookings = useBookings(workspace.id, status);
  const bots = useBots(workspace.id);

  return (
    <Page title="Bookings" description="Appointments visitors asked for through the widget. The visitor is e-mailed when you confirm, reject, reschedule or cancel.">
      <Section title="Bookings" id="bookings-list">
        <div className="form form--inline">
          <SelectInput
            label="Status"
            id="bookings-status"
            value={status}
            onChange={(v) => setParams(v ? { status: v } : {})}
            options={[{ value: '', label: 'All statuses' }, ...BOOKING_STATUS_OPTIONS]}
          />
        </div>
        {bookings.isPending ? (
          <Loading what="bookings" />
        ) : bookings.isError ? (
          <ErrorMessage error={bookings.error} />
        ) : bookings.data.length === 0 ? (
          <p className="empty">No bookings{status ? ` ${status}` : ''}.</p>
        ) : (
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Bookings table">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Visitor</th>
                  <th scope="col">Requested time</th>
                  <th scope="col">Status</th>
                  <th scope="col">Notes</th>
                  {canManage ? <th scope="col">Actions</th> : null}
                </tr>
              </thead>
              <tbody>
                {bookings.data.map((b) => (
                  <tr key={b.id}>
                    <th scope="row" className="table__name">
                      <span id={`booking-${b.id}-visitor`}>{b.name}</span>
                      <span className="block muted small">{b.email}</span>
                      <span className="block muted small">{b.phone}</span>
                    </th>
                    <td>
                      <DateTime value={b.requested_slot} empty="Not given" />
                      {b.time_zone ? <span className="block muted small">{b.time_zone}</span> : null}
                    </td>
                    <td>
                      {capitalise(b.status)}
                      {b.rejection_comment ? <span className="block muted small">{b.rejection_comment}</span> : null}
                    </td>
                    <td className="table__notes">
                      {b.notes ?? <span className="muted">—</span>}
                      <span className="block muted small">
                        {b.chatbot_id ? `${botName(b.chatbot_id, bots.data ?? [])} · ` : ''}received <DateTime value={b.created_at} />
                      </span>
                    </td>
                    {canManage ? (
                      <td>
                        <BookingActions workspaceId={workspace.id} booking={b} />
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
    </Page>
  );
}
