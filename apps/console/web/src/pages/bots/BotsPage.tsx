import { useNavigate } from 'react-router';
import { useBots, useWorkspace } from '../../api/workspace';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { ErrorMessage, Loading } from '../../components/Messages';
import { Page, Section } from '../../components/Page';
import { BotsTable } from './BotsTable';
import { CreateBotForm } from './CreateBotForm';

/** The workspace's bots; owners and admins create them (then land on the new bot's settings). */
export function BotsPage() {
  const { workspace, canManage } = useCurrentWorkspace();
  const bots = useBots(workspace.id);
  const facts = useWorkspace(workspace.id);
  const navigate = useNavigate();

  return (
    <Page title="Bots" description="Each bot answers from the workspace's knowledge, in its own language, on your website and through the API.">
      {canManage ? (
        <Section title="Create a bot" id="create-bot">
          <CreateBotForm
            workspaceId={workspace.id}
            enterprise={facts.data?.plan === 'enterprise'}
            onCreated={(bot) => navigate(`/w/${encodeURIComponent(workspace.id)}/bots/${encodeURIComponent(bot.id)}?created=1`)}
          />
        </Section>
      ) : null}
      <Section title="Bots" id="bots-list">
        {bots.isPending ? <Loading what="bots" /> : bots.isError ? <ErrorMessage error={bots.error} /> : <BotsTable workspaceId={workspace.id} bots={bots.data} />}
      </Section>
    </Page>
  );
}
