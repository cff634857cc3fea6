import { useState } from 'react';
import { useWebhooks } from '../../api/webhooks';
import { useBots } from '../../api/workspace';
import type { CreatedWebhook } from '../../api/types';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { SecretDialog } from '../../components/Dialogs';
import { ErrorMessage, InfoMessage, Loading } from '../../components/Messages';
import { Page, Section } from '../../components/Page';
import { AddWebhookForm } from './AddWebhookForm';
import { WebhooksTable } from './WebhooksTable';

export function WebhooksPage() {
  const { workspace, canManage } = useCurrentWorkspace();
  const webhooks = useWebhooks(workspace.id);
  const bots = useBots(workspace.id);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);

  return (
    <Page title="Webhooks" description="Webhooks send signed HTTPS requests to your endpoints when events happen. The last delivery's status is shown beside each webhook.">
      {canManage ? (
        <Section title="Add a webhook" id="add-webhook">
          <AddWebhookForm workspaceId={workspace.id} bots={bots.data ?? []} botsError={bots.error} onCreated={setCreated} />
        </Section>
      ) : null}
      <Section title="Webhooks" id="webhooks-list">
        {webhooks.isPending ? <Loading what="webhooks" /> : webhooks.isError ? <ErrorMessage error={webhooks.error} /> : <WebhooksTable webhooks={webhooks.data} bots={bots.data ?? []} />}
      </Section>
      <SecretDialog title={created ? `Webhook “${created.name}” added` : 'Webhook added'} secret={created?.secret ?? null} secretLabel="Signing secret" onClose={() => setCreated(null)}>
        <p className="muted">Your endpoint uses it to check the signature of every delivery. Rotate it from the webhook's page if it leaks.</p>
        {created && !created.deliveries_enabled ? (
          <InfoMessage tone="warning">
            <p>This workspace's plan includes no webhooks: nothing is delivered until it does.</p>
          </InfoMessage>
        ) : null}
      </SecretDialog>
    </Page>
  );
}
