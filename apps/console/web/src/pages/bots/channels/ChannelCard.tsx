import { type ChannelConnection, useDeleteChannelConnection } from '../../../api/channels';
import { CopyButton } from '../../../components/CopyButton';
import { DateTime } from '../../../components/DateTime';
import { ConfirmButton } from '../../../components/Dialogs';
import { InfoMessage } from '../../../components/Messages';
import { CHANNEL_STATUS, channelFields, channelKindName, secretLabel } from './channel-fields';
import { EditChannelDialog } from './ChannelDialogs';

/** The status in words first; the badge's colour and icon only repeat them. */
function StatusBadge({ connection }: { connection: ChannelConnection }) {
  const status = CHANNEL_STATUS[connection.status];
  return (
    <>
      <span className={`badge badge--${status.badge}`}>
        <span className="badge__icon" aria-hidden="true" />
        {status.label}
      </span>{' '}
      <span className="muted">{status.hint}</span>
    </>
  );
}

/** The URL to give the provider, selectable, with its Copy button. */
function WebhookUrl({ connection }: { connection: ChannelConnection }) {
  const id = `channel-webhook-${connection.id}`;
  const url = connection.webhook_url ?? '';
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        Webhook URL
      </label>
      <div className="secret">
        <input id={id} className="field__input secret__value" readOnly value={url} spellCheck={false} autoComplete="off" onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={url} inputId={id} label="Copy webhook URL" what="URL" />
      </div>
      <p className="field__description">Give it to {channelKindName(connection.kind)} as the bot&apos;s webhook (request) URL.</p>
    </div>
  );
}

/** The settings as given (never a credential): name and value, as text. */
function SettingsSummary({ connection }: { connection: ChannelConnection }) {
  const shown = channelFields(connection.kind).settings.filter((f) => connection.settings[f.name]);
  if (shown.length === 0) return null;
  return (
    <div>
      <dt>Settings</dt>
      <dd>
        {shown.map((f, i) => (
          <span key={f.name}>
            {i > 0 ? ' · ' : null}
            {f.label}: <span className="action-url">{connection.settings[f.name]}</span>
          </span>
        ))}
      </dd>
    </div>
  );
}

/**
 * One connection: its kind, status (and why it failed, as text), its last messages, its settings,
 * the names of its stored credentials, and for a webhook kind the URL to give the provider. Edit
 * and Delete for owners and admins.
 */
export function ChannelCard({ workspaceId, botId, connection, canManage }: { workspaceId: string; botId: string; connection: ChannelConnection; canManage: boolean }) {
  const remove = useDeleteChannelConnection(workspaceId, botId);
  const headingId = `channel-${connection.id}`;
  return (
    <section className="action-group" aria-labelledby={headingId}>
      <div className="action-group__head">
        <h3 className="action-group__title" id={headingId}>
          {connection.name}
        </h3>
        {canManage ? (
          <div className="actions__buttons">
            <EditChannelDialog workspaceId={workspaceId} botId={botId} connection={connection} describedBy={headingId} />
            <ConfirmButton trigger="Delete" title={`Delete the channel “${connection.name}”?`} describedBy={headingId} onConfirm={() => remove.mutateAsync(connection.id)}>
              <p>The bot no longer answers on it, and its stored credentials are deleted with it. Its conversations and leads stay.</p>
            </ConfirmButton>
          </div>
        ) : null}
      </div>
      <dl className="summary summary--card">
        <div>
          <dt>Kind</dt>
          <dd>{channelKindName(connection.kind)}</dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge connection={connection} />
          </dd>
        </div>
        <div>
          <dt>Last message in</dt>
          <dd>
            <DateTime value={connection.last_inbound_at} empty="never" />
          </dd>
        </div>
        <div>
          <dt>Last reply out</dt>
          <dd>
            <DateTime value={connection.last_outbound_at} empty="never" />
          </dd>
        </div>
        <SettingsSummary connection={connection} />
        <div>
          <dt>Credentials</dt>
          <dd>{connection.secrets_set.length ? `${connection.secrets_set.map(secretLabel).join(', ')} (stored, never shown)` : 'none'}</dd>
        </div>
      </dl>
      {connection.last_error ? (
        <InfoMessage tone="warning">
          {/* The provider's or the server's words, through the channels service: rendered as text. */}
          Last error (<DateTime value={connection.last_error_at} />): {connection.last_error}
        </InfoMessage>
      ) : null}
      {connection.webhook_url !== null ? <WebhookUrl connection={connection} /> : null}
    </section>
  );
}
