import type { Workspace } from '../../api/types';

/** Whether the API and the live service answer; when locked, why (402 `api_locked`). */
export function LiveAccess({ access }: { access: Workspace['live_access'] }) {
  if (access.ok) {
    return (
      <div className="notice notice--success">
        <span className="notice__icon" aria-hidden="true" />
        <div>
          <p className="notice__title">Available</p>
          <p>The REST API, the MCP server and the live chat widget answer normally.</p>
        </div>
      </div>
    );
  }
  return (
    <div className="notice notice--error">
      <span className="notice__icon" aria-hidden="true" />
      <div>
        <p className="notice__title">Locked{access.code ? <>: <code>{access.code}</code></> : null}</p>
        <p>
          The API and the live service are unavailable until the billing or the plan is fixed: API requests are refused with <code>402 {access.code ?? 'api_locked'}</code> and the
          chat widget does not answer visitors. Your data is kept, and this console keeps working.
        </p>
        {access.reason ? <p>Reason: {access.reason}</p> : null}
      </div>
    </div>
  );
}
