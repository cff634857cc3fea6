import { useSearchParams } from 'react-router';
import { useWidget } from '../../api/widget';
import { useBots } from '../../api/workspace';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { SelectInput } from '../../components/Fields';
import { ErrorMessage, InfoMessage, Loading } from '../../components/Messages';
import { Page, Section } from '../../components/Page';
import { AppearanceForm } from './AppearanceForm';
import { IdentitySection } from './IdentitySection';
import { InstallSection } from './InstallSection';
import { OriginsForm } from './OriginsForm';

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
  const widget = useWidget(workspace.id, botId);

  return (
    <Page title="Widget" description="Put a bot on your website with one script tag: visitors chat, leave their details, request bookings and open tickets.">
      {bots.isPending ? (
        <Loading what="bots" />
      ) : bots.isError ? (
        <ErrorMessage error={bots.error} title="The bots could not be loaded." />
      ) : botId === null ? (
        <InfoMessage>
          <p>This workspace has no bots yet. Create one with the API (POST /v1/bots), then come back to put it on your website.</p>
        </InfoMessage>
      ) : (
        <>
          <div className="picker-row">
            <SelectInput label="Bot" id="widget-bot" value={botId} onChange={(id) => setParams({ bot: id }, { replace: true })} options={list.map((b) => ({ value: b.id, label: b.name }))} />
          </div>
          {widget.isPending ? (
            <Loading what="the widget's settings" />
          ) : widget.isError ? (
            <ErrorMessage error={widget.error} title="The widget's settings could not be loaded." />
          ) : (
            <div key={botId}>
              <Section title="Install" id="widget-install">
                <InstallSection install={widget.data.install} />
              </Section>
              <Section title="Allowed origins" id="widget-origins">
                <OriginsForm workspaceId={workspace.id} botId={botId} origins={widget.data.allowed_origins} canManage={canManage} />
              </Section>
              <Section title="Appearance" id="widget-appearance">
                <AppearanceForm workspaceId={workspace.id} botId={botId} theme={widget.data.theme} canManage={canManage} />
              </Section>
              <Section title="Identity verification" id="widget-identity">
                <IdentitySection workspaceId={workspace.id} botId={botId} identity={widget.data.identity_secret} canManage={canManage} />
              </Section>
            </div>
          )}
        </>
      )}
    </Page>
  );
}
