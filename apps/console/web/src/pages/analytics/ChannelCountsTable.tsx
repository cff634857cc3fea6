import type { ChannelCount } from '../../api/analytics';
import { formatNumber } from '../../lib/format';
import { channelName } from '../../lib/records';

const n = formatNumber;

/**
 * "Analytics splits by channel" (issue 35): per channel, the conversations active in the window,
 * the visitor messages and the replies marked unanswered, busiest first, with the channels' names
 * the Conversations filter uses.
 */
export function ChannelCountsTable({ channels }: { channels: ChannelCount[] }) {
  if (channels.length === 0) return <p className="empty">No conversations in the last 30 days.</p>;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="By channel table">
      <table className="table">
        <caption className="visually-hidden">By channel</caption>
        <thead>
          <tr>
            <th scope="col">Channel</th>
            <th scope="col">Conversations</th>
            <th scope="col">Messages</th>
            <th scope="col">Unanswered replies</th>
          </tr>
        </thead>
        <tbody>
          {channels.map((c) => (
            <tr key={c.channel}>
              <th scope="row" className="table__name">
                {channelName(c.channel)}
              </th>
              <td>{n(c.conversations)}</td>
              <td>{n(c.messages)}</td>
              <td>{n(c.unanswered)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
