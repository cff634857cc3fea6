import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useDeleteWebhook, useRotateSecret, useSendTestEvent } from '../../api/webhooks';
import type { Webhook } from '../../api/types';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { ConfirmButton, SecretDialog } from '../../components/Dialogs';
import { ErrorMessage, SuccessMessage } from '../../components/Messages';
import { ActionButton } from '../../components/ActionButton';

/** "Send test event", "Rotate secret" (the new secret shown once), "Delete". */
export function WebhookActions({ webhook }: { webhook: Webhook }) {
  const { workspace } = useCurrentWorkspace();
  const navigate = useNavigate();
  const test = useSendTestEvent(workspace.id);
  const rotate = useRotateSecret(workspace.id);
  const remove = useDeleteWebhook(workspace.id);
  const [secret, setSecret] = useState<string | null>(null);

  return (
    <div className="actions">
      <div className="actions__buttons">
        <ActionButton className="button button--secondary button--small" isPending={test.isPending} onPress={() => test.mutate(webhook.id)}>
          Send test event
        </ActionButton>
        <ConfirmButton
          trigger="Rotate secret"
          title="Rotate the signing secret?"
          triggerVariant="secondary"
          tone="default"
          onConfirm={async () => setSecret((await rotate.mutateAsync(webhook.id)).secret)}
        >
          <p>Deliveries are signed with a new secret from now on. Update your endpoint with the new secret, which is shown once.</p>
        </ConfirmButton>
        <ConfirmButton
          trigger="Delete"
          title={`Delete “${webhook.name}”?`}
          onConfirm={async () => {
            await remove.mutateAsync(webhook.id);
            navigate(`/w/${encodeURIComponent(workspace.id)}/webhooks`);
          }}
        >
          <p>Nothing is delivered to {webhook.url} any more, and its delivery log is deleted. This cannot be undone.</p>
        </ConfirmButton>
      </div>
      {test.isSuccess ? <SuccessMessage>A test event is on its way; it appears in the delivery log.</SuccessMessage> : null}
      <ErrorMessage error={test.error} />
      <SecretDialog title="Secret rotated" secret={secret} secretLabel="Signing secret" onClose={() => setSecret(null)} />
    </div>
  );
}
