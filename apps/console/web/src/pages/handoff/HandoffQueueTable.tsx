import type { Handoff } from '../../api/handoff';
import type { Bot } from '../../api/types';
import { DateTime } from '../../components/DateTime';
import { botName } from '../../lib/bots';
import { channelName } from '../../lib/records';
import { stateLabel } from './handoff-labels';

/** The conversations that asked for a person: where (the channel), what, when, and who holds each. */
export function HandoffQueueTable({ handoffs, bots, selected, onOpen }: { handoffs: Handoff[]; bots: Bot[]; selected: string | null; onOpen: (sessionId: string) => void }) {
  if (handoffs.length === 0) return <p className="empty">No conversation is waiting for a person.</p>;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Handoff queue table">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Conversation</th>
            <th scope="col">Bot</th>
            <th scope="col">State</th>
            <th scope="col">Asked</th>
            <th scope="col">Visitor's message</th>
          </tr>
        </thead>
        <tbody>
          {handoffs.map((h, i) => (
            <tr key={h.session_id} aria-current={h.session_id === selected ? 'true' : undefined}>
              <th scope="row" className="table__name">
                <button type="button" className="button button--secondary button--small" onClick={() => onOpen(h.session_id)} aria-label={`Open conversation ${i + 1} (${channelName(h.channel)})`}>
                  Open
                </button>{' '}
                <span className="muted small">{channelName(h.channel)}</span>
              </th>
              <td>{botName(h.chatbot_id, bots)}</td>
              <td>{stateLabel(h)}</td>
              <td>
                <DateTime value={h.requested_at} />
              </td>
              <td>{h.question ?? <span className="muted">{h.kind === 'explicit' ? 'Asked with the “Talk to a person” button' : 'Noticed by the bot'}</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
