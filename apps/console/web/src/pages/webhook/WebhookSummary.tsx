import type { Bot, Webhook } from '../../api/types';
import { DateTime } from '../../components/DateTime';
import { Tags } from '../../components/Tags';
import { botName } from '../../lib/bots';

export function WebhookSummary({ webhook, bots }: { webhook: Webhook; bots: Bot[] }) {
  return (
    <dl className="summary summary--card">
      <div>
        <dt>Endpoint URL</dt>
        <dd className="table__url">{webhook.url}</dd>
      </div>
      <div>
        <dt>Events</dt>
        <dd>
          <Tags items={webhook.events} />
        </dd>
      </div>
      <div>
        <dt>Bots</dt>
        <dd>{botName(webhook.bot_id, bots)}</dd>
      </div>
      <div>
        <dt>Created</dt>
        <dd>
          <DateTime value={webhook.created_at} />
        </dd>
      </div>
    </dl>
  );
}
