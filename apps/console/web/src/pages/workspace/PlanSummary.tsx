import type { Workspace } from '../../api/types';
import { DateTime } from '../../components/DateTime';
import { capitalise } from '../../lib/format';

export function PlanSummary({ workspace }: { workspace: Workspace }) {
  return (
    <dl className="summary summary--card">
      <div>
        <dt>Workspace</dt>
        <dd>{workspace.name}</dd>
      </div>
      <div>
        <dt>Plan</dt>
        <dd>{capitalise(workspace.plan)}</dd>
      </div>
      <div>
        <dt>Billing status</dt>
        <dd>{capitalise(workspace.billing_status.replace(/_/g, ' '))}</dd>
      </div>
      {workspace.trial_ends_at ? (
        <div>
          <dt>Trial ends</dt>
          <dd>
            <DateTime value={workspace.trial_ends_at} />
          </dd>
        </div>
      ) : null}
      <div>
        <dt>Your role</dt>
        <dd>{capitalise(workspace.role)}</dd>
      </div>
    </dl>
  );
}
