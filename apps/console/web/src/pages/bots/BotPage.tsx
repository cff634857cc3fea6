import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import type { PlaygroundBehaviour } from '../../api/types';
import { useBots } from '../../api/workspace';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { ErrorMessage, Loading, SuccessMessage } from '../../components/Messages';
import { Page, Section } from '../../components/Page';
import { WidgetSections } from '../widget/WidgetSections';
import { ActionsSection } from './actions/ActionsSection';
import { McpServers } from './actions/McpServers';
import { BehaviourSection } from './BehaviourForm';
import { BotSettingsForm } from './BotSettingsForm';
import { ChannelsSection } from './channels/ChannelsSection';
import { TryIt } from './TryIt';

/** One bot: its name and reply language, its behaviour, its actions, its channels (issue 35), the playground (owners and admins), then its widget (snippet, origins, greeting and look, identity secret). */
export function BotPage() {
  const { workspace, canManage } = useCurrentWorkspace();
  const { botId = '' } = useParams();
  const [params] = useSearchParams();
  const bots = useBots(workspace.id);
  const bot = bots.data?.find((b) => b.id === botId);
  const [draft, setDraft] = useState<PlaygroundBehaviour | undefined>(undefined);
  const back = (
    <p>
      <Link to={`/w/${encodeURIComponent(workspace.id)}/bots`}>All bots</Link>
    </p>
  );

  if (bots.isPending) return <Loading what="the bot" />;
  if (bots.isError) return <ErrorMessage error={bots.error} title="The bot could not be loaded." />;
  if (!bot) {
    return (
      <Page title="Bot not found" description="There is no such bot in this workspace.">
        {back}
      </Page>
    );
  }
  return (
    <Page title={bot.name} description="The bot's settings and how to put it on your website.">
      {back}
      {params.get('created') ? <SuccessMessage>Bot created. Copy the install snippet below to put it on your website.</SuccessMessage> : null}
      <Section title="Settings" id="bot-settings">
        <BotSettingsForm key={bot.id} workspaceId={workspace.id} bot={bot} canManage={canManage} />
      </Section>
      <Section title="Behaviour" id="bot-behaviour">
        <BehaviourSection workspaceId={workspace.id} botId={bot.id} canManage={canManage} onDraft={canManage ? setDraft : undefined} />
      </Section>
      <Section title="Actions" id="bot-actions">
        <ActionsSection key={bot.id} workspaceId={workspace.id} botId={bot.id} canManage={canManage} />
        <McpServers key={`mcp-${bot.id}`} workspaceId={workspace.id} botId={bot.id} canManage={canManage} />
      </Section>
      <Section title="Channels" id="bot-channels">
        <ChannelsSection key={bot.id} workspaceId={workspace.id} botId={bot.id} canManage={canManage} />
      </Section>
      {canManage ? (
        <Section title="Try it" id="bot-try-it">
          <TryIt key={bot.id} workspaceId={workspace.id} botId={bot.id} behaviour={draft} />
        </Section>
      ) : null}
      <WidgetSections workspaceId={workspace.id} botId={bot.id} canManage={canManage} />
    </Page>
  );
}
