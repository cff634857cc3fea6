import { useModelConnections } from '../../api/models';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { ErrorMessage, InfoMessage, Loading } from '../../components/Messages';
import { Page, Section } from '../../components/Page';
import { AddModelConnectionForm } from './AddModelConnectionForm';
import { EmbeddingModelSection } from './EmbeddingModelSection';
import { ModelConnectionsTable } from './ModelConnectionsTable';

/**
 * "Models" (issue 32): the workspace's provider connections (OpenAI-compatible, Anthropic,
 * Ollama), which each bot picks its chat model from (its Behaviour), and the workspace's embedding
 * model. Owners and admins change them; members read.
 */
export function ModelsPage() {
  const { workspace, canManage } = useCurrentWorkspace();
  const connections = useModelConnections(workspace.id);

  return (
    <Page
      title="Models"
      description="The AI providers this workspace's bots answer with and its knowledge is embedded with. Each bot picks its chat model in its Behaviour; without a connection, the installation's model answers."
    >
      {canManage ? null : (
        <div className="page-notice">
          <InfoMessage>
            <p>Owners and admins change models. You can see them here.</p>
          </InfoMessage>
        </div>
      )}
      <Section title="Connections" id="model-connections" description="Keys are stored encrypted and never shown again: the table says only whether one is set.">
        {connections.isPending ? (
          <Loading what="model connections" />
        ) : connections.isError ? (
          <ErrorMessage error={connections.error} title="The model connections could not be loaded." />
        ) : (
          <ModelConnectionsTable workspaceId={workspace.id} connections={connections.data} canManage={canManage} />
        )}
      </Section>
      {canManage ? (
        <Section title="Add a connection" id="add-model-connection">
          <AddModelConnectionForm workspaceId={workspace.id} />
        </Section>
      ) : null}
      <Section title="Embedding model" id="embedding-model" description="The model the workspace's knowledge is embedded with, for finding the passages an answer is based on.">
        <EmbeddingModelSection workspaceId={workspace.id} connections={connections.data ?? []} canManage={canManage} />
      </Section>
    </Page>
  );
}
