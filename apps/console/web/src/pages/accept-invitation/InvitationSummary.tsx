import type { InvitationPreview } from '../../api/types';
import { capitalise } from '../../lib/format';

/** Which workspace, which address, which role. */
export function InvitationSummary({ invitation }: { invitation: InvitationPreview }) {
  return (
    <dl className="summary">
      <div>
        <dt>Workspace</dt>
        <dd>{invitation.workspace_name}</dd>
      </div>
      <div>
        <dt>Email</dt>
        <dd>{invitation.email}</dd>
      </div>
      <div>
        <dt>Role</dt>
        <dd>{capitalise(invitation.role)}</dd>
      </div>
    </dl>
  );
}
