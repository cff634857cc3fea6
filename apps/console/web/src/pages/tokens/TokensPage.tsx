import { useState } from 'react';
import { useBots } from '../../api/workspace';
import { useTokens } from '../../api/tokens';
import type { CreatedApiToken } from '../../api/types';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { SecretDialog } from '../../components/Dialogs';
import { ErrorMessage, Loading } from '../../components/Messages';
import { Page, Section } from '../../components/Page';
import { CreateTokenForm } from './CreateTokenForm';
import { TokensTable } from './TokensTable';

export function TokensPage() {
  const { workspace, canManage } = useCurrentWorkspace();
  const tokens = useTokens(workspace.id);
  const bots = useBots(workspace.id);
  const [created, setCreated] = useState<CreatedApiToken | null>(null);

  return (
    <Page title="API tokens" description="Tokens let your programs call the REST API and the MCP server for this workspace. Each token has scopes and may be limited to some bots.">
      {canManage ? (
        <Section title="Create a token" id="create-token">
          <CreateTokenForm workspaceId={workspace.id} bots={bots.data ?? []} botsError={bots.error} onCreated={setCreated} />
        </Section>
      ) : null}
      <Section title="Tokens" id="tokens-list">
        {tokens.isPending ? <Loading what="tokens" /> : tokens.isError ? <ErrorMessage error={tokens.error} /> : <TokensTable tokens={tokens.data} bots={bots.data ?? []} />}
      </Section>
      <SecretDialog title={created ? `Token “${created.name}” created` : 'Token created'} secret={created?.token ?? null} secretLabel="Token secret" onClose={() => setCreated(null)}>
        <p className="muted">Send it as <code>Authorization: Bearer …</code>. Revoke the token here when it is no longer needed or may have leaked.</p>
      </SecretDialog>
    </Page>
  );
}
