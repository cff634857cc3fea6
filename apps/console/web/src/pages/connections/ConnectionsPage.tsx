import { useConnections } from '../../api/oauth';
import { useBots } from '../../api/workspace';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { ErrorMessage, Loading } from '../../components/Messages';
import { Page, Section } from '../../components/Page';
import { ConnectionsTable } from './ConnectionsTable';

/** `/w/:workspaceId/connections`: the MCP clients people approved through OAuth. */
export function ConnectionsPage() {
  const { workspace, canManage } = useCurrentWorkspace();
  const connections = useConnections(workspace.id);
  const bots = useBots(workspace.id);
  return (
    <Page
      title="Connections"
      description="Applications (MCP clients such as Claude or ChatGPT) that an owner or admin allowed to use this workspace through the MCP server. Each has scopes and may be limited to some bots, like a token."
    >
      <Section title="Approved applications" id="connections-list" description={canManage ? 'Revoke a connection the workspace no longer uses or does not recognise.' : 'Only owners and admins can revoke connections.'}>
        {connections.isPending ? <Loading what="connections" /> : connections.isError ? <ErrorMessage error={connections.error} /> : <ConnectionsTable connections={connections.data} bots={bots.data ?? []} />}
      </Section>
    </Page>
  );
}
