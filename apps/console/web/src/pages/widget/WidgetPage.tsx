import { useSearchParams } from 'react-router';
import { useBots } from '../../api/workspace';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { SelectInput } from '../../components/Fields';
import { ErrorMessage, InfoMessage, Loading } from '../../components/Messages';
import { Page } from '../../components/Page';
import { WidgetSections } from './WidgetSections';

/**
 * The visitor widget of one bot (chosen with "Bot", kept in `?bot=`): the install snippet, the
 * allowed origins, the appearance and the identity secret. Members read; owners and admins write.
 */
export function WidgetPage() {
  const { workspace, canManage } = useCurrentWorkspace();
  const bots = useBots(workspace.id);
  const [params, setParams] = useSearchParams();
  const list = bots.data ?? [];
  const wanted = params.get('bot');
  const botId = list.find((b) => b.id === wanted)?.id ?? list[0]?.id ?? null;

  return (
    <Page title="Widget" description="Put a bot on your website with one script tag: visitors chat, leave their details, request bookings and open tickets.">
      {bots.isPending ? (
        <Loading what="bots" />
      ) : bots.isError ? (
        <ErrorMessage error={bots.error} title="The bots could not be loaded." />
      ) : botId === null ? (
        <InfoMessage>
          <p>This workspace has no bots yet. Create one on the Bots page (or with POST /v1/bots), then come back to put it on your website.</p>
        </InfoMessage>
      ) : (
        <>
          <div className="picker-row">
            <SelectInput label="Bot" id="widget-bot" value={botId} onChange={(id) => setParams({ bot: id }, { replace: true })} options={list.map((b) => ({ value: b.id, label: b.name }))} />
          </div>
          <WidgetSections workspaceId={workspace.id} botId={botId} canManage={canManage} />
        </>
      )}
    </Page>
  );
}
