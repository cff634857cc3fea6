import { useRevokeToken } from '../../api/tokens';
import type { ApiToken, Bot } from '../../api/types';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { DateTime } from '../../components/DateTime';
import { ConfirmButton } from '../../components/Dialogs';
import { Tags } from '../../components/Tags';
import { botNames } from '../../lib/bots';

function TokenState({ token }: { token: ApiToken }) {
  if (token.revoked_at) {
    return (
      <span className="stack-xs">
        <span className="badge badge--failed">
          <span className="badge__icon" aria-hidden="true" />
          Revoked
        </span>
        <span className="muted small">
          <DateTime value={token.revoked_at} />
        </span>
      </span>
    );
  }
  if (token.expires_at && Date.parse(token.expires_at) <= Date.now()) return <span className="badge badge--neutral">Expired</span>;
  return (
    <span className="badge badge--succeeded">
      <span className="badge__icon" aria-hidden="true" />
      Active
    </span>
  );
}

/** Every token of the workspace: never a secret, only its last characters (hint). */
export function TokensTable({ tokens, bots }: { tokens: ApiToken[]; bots: Bot[] }) {
  const { workspace, canManage } = useCurrentWorkspace();
  const revoke = useRevokeToken(workspace.id);
  if (tokens.length === 0) return <p className="empty">No tokens yet.</p>;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="API tokens table">
      <table className="table table--compact table--tokens">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Hint</th>
            <th scope="col">Scopes</th>
            <th scope="col">Bots</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Expires</th>
            <th scope="col">Status</th>
            {canManage ? <th scope="col"><span className="visually-hidden">Actions</span></th> : null}
          </tr>
        </thead>
        <tbody>
          {tokens.map((t) => (
            <tr key={t.id} className={t.revoked_at ? 'table__row--inactive' : undefined}>
              <th scope="row" id={`token-${t.id}`} className="table__name">
                {t.name}
              </th>
              <td>
                <code>…{t.hint}</code>
              </td>
              <td>
                <Tags items={t.scopes} />
              </td>
              <td>{botNames(t.bot_ids, bots)}</td>
              <td>
                <DateTime value={t.created_at} />
              </td>
              <td>
                <DateTime value={t.last_used_at} empty="Never" />
              </td>
              <td>
                <DateTime value={t.expires_at} empty="Never" />
              </td>
              <td>
                <TokenState token={t} />
              </td>
              {canManage ? (
                <td className="table__actions">
                  {t.revoked_at ? null : (
                    <ConfirmButton trigger="Revoke" title={`Revoke “${t.name}”?`} describedBy={`token-${t.id}`} onConfirm={() => revoke.mutateAsync(t.id)}>
                      <p>Programs using this token get 401 within seconds. This cannot be undone: create a new token to restore access.</p>
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
