import { Link, useParams } from 'react-router';
import { useWebhooks } from '../../api/webhooks';
import { useBots } from '../../api/workspace';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { DeliveryStatus } from '../../components/DeliveryStatus';
import { ErrorMessage, Loading } from '../../components/Messages';
import { Page, Section } from '../../components/Page';
import { DeliveryLog } from './DeliveryLog';
import { WebhookActions } from './WebhookActions';
import { WebhookSummary } from './WebhookSummary';

/** `/w/:workspaceId/webhooks/:webhookId`: one webhook, its actions and its delivery log. */
export function WebhookPage() {
  const { webhookId = '' } = useParams();
  const { workspace, canManage } = useCurrentWorkspace();
  const webhooks = useWebhooks(workspace.id);
  const bots = useBots(workspace.id);
  const back = (
    <p className="breadcrumb">
      <Link to={`/w/${encodeURIComponent(workspace.id)}/webhooks`}>← All webhooks</Link>
    </p>
  );

  if (webhooks.isPending) return <Loading what="the webhook" />;
  if (webhooks.isError) return <ErrorMessage error={webhooks.error} />;
  const webhook = webhooks.data.find((w) => w.id === webhookId);
  if (!webhook) {
    return (
      <Page title="Webhook not found">
        {back}
        <p>This webhook does not exist or was deleted.</p>
      </Page>
    );
  }
  return (
    <Page title={webhook.name} description={<>Last delivery: <DeliveryStatus delivery={webhook.last_delivery} /></>} actions={canManage ? <WebhookActions webhook={webhook} /> : undefined}>
      {back}
      <WebhookSummary webhook={webhook} bots={bots.data ?? []} />
      <Section title="Delivery log" id="delivery-log" description="The most recent deliveries, newest first. A failed delivery is not retried automatically: Redeliver sends it again now.">
        <DeliveryLog webhookId={webhook.id} />
      </Section>
    </Page>
  );
}
