import { Link } from 'react-router';
import { useEvalAlerts } from '../../api/evaluations';
import { useBots } from '../../api/workspace';
import { formatPercent } from '../../lib/evaluations';

/**
 * The console's banner (issue 33): the bots whose latest evaluation run passed fewer cases than
 * their gate, each with a link to its Evaluations page. Nothing while there are none, or while the
 * evaluations service cannot be asked.
 */
export function EvalAlertsBanner({ workspaceId }: { workspaceId: string }) {
  const alerts = useEvalAlerts(workspaceId);
  const bots = useBots(workspaceId);
  if (!alerts.data || alerts.data.length === 0) return null;
  const nameOf = (id: string) => bots.data?.find((b) => b.id === id)?.name ?? 'A bot';
  return (
    <div className="notice notice--warning eval-banner" role="alert">
      <span className="notice__icon" aria-hidden="true" />
      <ul className="eval-banner__list">
        {alerts.data.map((a) => (
          <li key={a.chatbot_id}>
            Evaluation under threshold: {nameOf(a.chatbot_id)} passed {formatPercent(a.pass_rate)} (gate {formatPercent(a.min_pass_rate)}).{' '}
            <Link to={`/w/${encodeURIComponent(workspaceId)}/evaluations?bot=${encodeURIComponent(a.chatbot_id)}&run=${encodeURIComponent(a.run_id)}`}>
              See the results<span className="visually-hidden"> of {nameOf(a.chatbot_id)}</span>
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}
