import { useState } from 'react';
import type { WidgetSettings } from '../../api/types';
import { useRotateWidgetSecret } from '../../api/widget';
import { DateTime } from '../../components/DateTime';
import { ConfirmButton, SecretDialog } from '../../components/Dialogs';

/**
 * The widget's identity secret: whether there is one (and since when), "Rotate secret" (asks
 * first; the new secret is shown once), and how a website computes `userHash` with it.
 */
export function IdentitySection({ workspaceId, botId, identity, canManage }: { workspaceId: string; botId: string; identity: WidgetSettings['identity_secret']; canManage: boolean }) {
  const rotate = useRotateWidgetSecret(workspaceId, botId);
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <>
      <p className="section__description">
        Websites with signed-in users call <code>SupportAgent.identify({'{'} externalUserId, userHash {'}'})</code>. Your server computes <code>userHash</code> as the hex HMAC-SHA256 of the user's id
        with this secret as the key, e.g. in Node: <code>crypto.createHmac('sha256', secret).update(userId).digest('hex')</code>. Keep the secret on your server, never in the page.
      </p>
      <dl className="details">
        <div>
          <dt>Identity secret</dt>
          <dd>
            {identity.set ? (
              <>
                Set on <DateTime value={identity.created_at} />
              </>
            ) : (
              'Not set: identify calls are refused until a secret is created.'
            )}
          </dd>
        </div>
      </dl>
      {canManage ? (
        <div className="actions__buttons">
          <ConfirmButton
            trigger="Rotate secret"
            title={identity.set ? 'Rotate the identity secret?' : 'Create an identity secret?'}
            triggerVariant="secondary"
            tone="default"
            onConfirm={async () => setSecret((await rotate.mutateAsync()).secret)}
          >
            {identity.set ? (
              <p>The current secret stops working at once: hashes your server computes with it are refused. Update your server with the new secret, which is shown once.</p>
            ) : (
              <p>A new secret is created and shown once. Put it on your server to compute each user's hash.</p>
            )}
          </ConfirmButton>
        </div>
      ) : null}
      <SecretDialog title="New identity secret" secret={secret} secretLabel="Identity secret" copyLabel="Copy secret" onClose={() => setSecret(null)}>
        <p className="muted">Your server uses it to compute each user's userHash. Rotate it here if it leaks.</p>
      </SecretDialog>
    </>
  );
}
