import { useWidget } from '../../api/widget';
import { ErrorMessage, Loading } from '../../components/Messages';
import { Section } from '../../components/Page';
import { AppearanceForm } from './AppearanceForm';
import { IdentitySection } from './IdentitySection';
import { InstallSection } from './InstallSection';
import { OriginsForm } from './OriginsForm';

/**
 * One bot's widget: the install snippet, the allowed origins, the appearance (greeting included)
 * and the identity secret. Shown by the Widget page and by a bot's settings on the Bots page.
 */
export function WidgetSections({ workspaceId, botId, canManage }: { workspaceId: string; botId: string; canManage: boolean }) {
  const widget = useWidget(workspaceId, botId);
  if (widget.isPending) return <Loading what="the widget's settings" />;
  if (widget.isError) return <ErrorMessage error={widget.error} title="The widget's settings could not be loaded." />;
  return (
    <div key={botId}>
      <Section title="Install" id="widget-install">
        <InstallSection install={widget.data.install} />
      </Section>
      <Section title="Allowed origins" id="widget-origins">
        <OriginsForm workspaceId={workspaceId} botId={botId} origins={widget.data.allowed_origins} canManage={canManage} />
      </Section>
      <Section title="Appearance" id="widget-appearance">
        <AppearanceForm workspaceId={workspaceId} botId={botId} theme={widget.data.theme} canManage={canManage} />
      </Section>
      <Section title="Identity verification" id="widget-identity">
        <IdentitySection workspaceId={workspaceId} botId={botId} identity={widget.data.identity_secret} canManage={canManage} />
      </Section>
    </div>
  );
}
