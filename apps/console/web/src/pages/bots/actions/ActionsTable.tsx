import { Button } from 'react-aria-components';
import { useDeleteBotAction } from '../../../api/actions';
import type { BotAction } from '../../../api/types';
import { ConfirmButton } from '../../../components/Dialogs';
import { TestActionDialog } from './TestActionDialog';

const yesNo = (v: boolean) => (v ? 'Yes' : 'No');

function Row({ workspaceId, botId, action: a, canManage, onEdit }: { workspaceId: string; botId: string; action: BotAction; canManage: boolean; onEdit: (a: BotAction) => void }) {
  const remove = useDeleteBotAction(workspaceId, botId);
  const nameId = `bot-action-${a.id}`;
  return (
    <tr className={a.enabled ? undefined : 'table__row--inactive'}>
      <th scope="row" id={nameId} className="table__name">
        {a.name}
      </th>
      <td>{a.method}</td>
      <td className="table__url">{a.url}</td>
      <td>{yesNo(a.confirm)}</td>
      <td>{yesNo(a.verified_only)}</td>
      <td>{yesNo(a.enabled)}</td>
      {canManage ? (
        <td className="table__actions">
          <div className="actions__buttons">
            <Button className="button button--secondary button--small" aria-describedby={nameId} onPress={() => onEdit(a)}>
              Edit
            </Button>
            <TestActionDialog workspaceId={workspaceId} botId={botId} action={a} describedBy={nameId} />
            <ConfirmButton trigger="Delete" title={`Delete “${a.name}”?`} describedBy={nameId} onConfirm={() => remove.mutateAsync(a.id)}>
              <p>The bot no longer offers it, from its next turn. Its stored header values are deleted with it.</p>
            </ConfirmButton>
          </div>
        </td>
      ) : null}
    </tr>
  );
}

/** The bot's actions: name, method, URL and flags (user text, as text); Edit, Test and Delete for owners and admins. */
export function ActionsTable({ workspaceId, botId, actions, canManage, onEdit }: { workspaceId: string; botId: string; actions: BotAction[]; canManage: boolean; onEdit: (a: BotAction) => void }) {
  if (actions.length === 0) return <p className="empty">No actions yet.</p>;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Actions table">
      <table className="table table--actions">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Method</th>
            <th scope="col">URL</th>
            <th scope="col">Needs confirmation</th>
            <th scope="col">Verified visitors only</th>
            <th scope="col">Enabled</th>
            {canManage ? (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {actions.map((a) => (
            <Row key={a.id} workspaceId={workspaceId} botId={botId} action={a} canManage={canManage} onEdit={onEdit} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
