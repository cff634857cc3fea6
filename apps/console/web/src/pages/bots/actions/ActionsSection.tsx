import { useEffect, useRef, useState } from 'react';
import { Button } from 'react-aria-components';
import { useBotActions } from '../../../api/actions';
import type { BotAction } from '../../../api/types';
import { ErrorMessage, Loading, SuccessMessage } from '../../../components/Messages';
import { ActionForm } from './ActionForm';
import { ActionSettingsSection } from './ActionSettingsForm';
import { ActionsTable } from './ActionsTable';

/** The form's state: closed, adding, or editing one action. */
type Editing = null | { action?: BotAction };

/**
 * The bot's "Actions" (issue 34): calls of the workspace's own HTTPS APIs the bot may make for a
 * visitor, and its built-in actions. Owners and admins add, edit, test and delete; members read.
 * The form opens below the table with focus on its heading, and gives focus back on closing.
 */
export function ActionsSection({ workspaceId, botId, canManage }: { workspaceId: string; botId: string; canManage: boolean }) {
  const actions = useBotActions(workspaceId, botId);
  const [editing, setEditing] = useState<Editing>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  const addButton = useRef<HTMLButtonElement>(null);
  const wasOpen = useRef(false);

  useEffect(() => {
    if (editing !== null) {
      wasOpen.current = true;
      return;
    }
    if (!wasOpen.current) return;
    wasOpen.current = false;
    const back = opener.current?.isConnected ? opener.current : addButton.current;
    back?.focus();
  }, [editing]);

  const open = (next: { action?: BotAction }) => {
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setSaved(null);
    setEditing(next);
  };

  return (
    <div className="actions-section">
      <p className="field__description">
        Actions need a model: a bot on the offline default (extractive answers) never calls them. Choose its model under Behaviour. Calls that need the visitor&rsquo;s confirmation wait for it in the widget.
      </p>
      {actions.isPending ? (
        <Loading what="the actions" />
      ) : actions.isError ? (
        <ErrorMessage error={actions.error} title="The actions could not be loaded." />
      ) : (
        <ActionsTable workspaceId={workspaceId} botId={botId} actions={actions.data} canManage={canManage} onEdit={(action) => open({ action })} />
      )}
      {saved !== null ? <SuccessMessage>Action “{saved}” saved.</SuccessMessage> : null}
      {canManage && editing === null ? (
        <div>
          <Button ref={addButton} className="button button--primary" onPress={() => open({})}>
            Add action
          </Button>
        </div>
      ) : null}
      {canManage && editing !== null ? (
        <ActionForm
          key={editing.action?.id ?? 'new'}
          workspaceId={workspaceId}
          botId={botId}
          action={editing.action}
          onSaved={(a) => {
            setSaved(a.name);
            setEditing(null);
          }}
          onCancel={() => setEditing(null)}
        />
      ) : null}
      <ActionSettingsSection workspaceId={workspaceId} botId={botId} canManage={canManage} />
    </div>
  );
}
