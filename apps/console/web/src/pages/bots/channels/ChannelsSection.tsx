import { useChannelConnections } from '../../../api/channels';
import { ErrorMessage, Loading } from '../../../components/Messages';
import { AddChannelDialog } from './ChannelDialogs';
import { ChannelCard } from './ChannelCard';

/**
 * The bot's channel connections (issue 35): the bot on e-mail, WhatsApp, Telegram and Slack.
 * Owners and admins add, edit and delete; members read.
 */
export function ChannelsSection({ workspaceId, botId, canManage }: { workspaceId: string; botId: string; canManage: boolean }) {
  const connections = useChannelConnections(workspaceId, botId);
  return (
    <>
      <p className="section__description">
        The bot answers on e-mail, WhatsApp, Telegram and Slack through these accounts. Credentials are stored encrypted and never shown again. At most 10 per bot.
      </p>
      {connections.isPending ? (
        <Loading what="the channels" />
      ) : connections.isError ? (
        <ErrorMessage error={connections.error} title="The channels could not be loaded." />
      ) : connections.data.length === 0 ? (
        <p className="empty">No channels yet.</p>
      ) : (
        connections.data.map((c) => <ChannelCard key={c.id} workspaceId={workspaceId} botId={botId} connection={c} canManage={canManage} />)
      )}
      {canManage ? (
        <div>
          <AddChannelDialog workspaceId={workspaceId} botId={botId} />
        </div>
      ) : null}
    </>
  );
}
