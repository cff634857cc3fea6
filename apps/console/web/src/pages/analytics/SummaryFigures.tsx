import type { Analytics } from '../../api/types';

/** The headline figures: sessions, messages per session, unanswered rate, feedback. */
export function SummaryFigures({ analytics }: { analytics: Analytics }) {
  const { sessions, unanswered, feedback } = analytics;
  return (
    <dl className="summary summary--card" aria-label="Figures of the last 30 days">
      <div>
        <dt>Sessions</dt>
        <dd>{sessions.total}</dd>
      </div>
      <div>
        <dt>Messages per session</dt>
        <dd>{sessions.avg_messages}</dd>
      </div>
      <div>
        <dt>Unanswered rate</dt>
        <dd>
          {unanswered.rate}% ({unanswered.count} of {unanswered.total} replies)
        </dd>
      </div>
      <div>
        <dt>Helpful replies</dt>
        <dd>{feedback.positive}</dd>
      </div>
      <div>
        <dt>Unhelpful replies</dt>
        <dd>{feedback.negative}</dd>
      </div>
    </dl>
  );
}
