import { useRevokeConnection } from '../../api/oauth';
import type { Bot, Connection } from '../../api/types';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { ClientName } from '../../components/ClientName';
import { DateTime } from '../../components/DateTime';
import { ConfirmButton } from '../../components/Dialogs';
import { botNames } from '../../lib/bots';
import { scopeWords } from '../../lib/scopes';
import { Tags } from '../../components/Tags';

function Approver({ by }: { by: Connection['approved_by'] }) {
  if (!by) return <span className="muted">A deleted account</span>;
  return (
    <span className="stack-xs">
      {by.display_name ? <span>{by.display_name}</span> : null}
      <span className={by.display_name ? 'muted small' : undefined}>{by.email}</span>
    </span>
  );
}

/** Every OAuth connection of the workspace; client names are self-asserted and marked so. */
export function ConnectionsTable({ connections, bots }: { connections: Connection[]; bots: Bot[] }) {
  const { workspace, canManage } = useCurrentWorkspace();
  const revoke = useRevokeConnection(workspace.id);
  if (connections.length === 0) return <p className="empty">No connections yet.</p>;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Connections table">
      <table className="table table--connections">
        <thead>
          <tr>
            <th scope="col">Client</th>
            <th scope="col">Approved by</th>
            <th scope="col">Scopes</th>
            <th scope="col">Bots</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Revoked</th>
            {canManage ? (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {connections.map((c) => (
            <tr key={c.id} className={c.revoked_at ? 'table__row--inactive' : undefined}>
              <th scope="row" className="table__name client-cell">
                <span className="stack-xs">
                  <ClientName name={c.client_name} id={`connection-${c.id}`} />
                  <code className="muted small client-id">{c.client_id}</code>
                </span>
              </th>
              <td>
                <Approver by={c.approved_by} />
              </td>
              <td>
                <Tags items={c.scopes} titleOf={scopeWords} />
              </td>
              <td>{botNames(c.bot_ids, bots)}</td>
              <td>
                <DateTime value={c.created_at} />
              </td>
              <td>
                <DateTime value={c.last_used_at} empty="Never" />
              </td>
              <td>
                <DateTime value={c.revoked_at} empty="No" />
              </td>
              {canManage ? (
                <td className="table__actions">
                  {c.revoked_at ? null : (
                    <ConfirmButton trigger="Revoke" title="Revoke this connection?" describedBy={`connection-${c.id}`} onConfirm={() => revoke.mutateAsync(c.id)}>
                      <p>
                        The application loses access to this workspace at once: its next call to the MCP server gets 401. This cannot be undone; to connect it again, approve it again from the
                        application.
                      </p>
                    </ConfirmButton>
                  )}
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
