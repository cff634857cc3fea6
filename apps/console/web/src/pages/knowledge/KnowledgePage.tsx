import { useKnowledge } from '../../api/knowledge';
import { useBots } from '../../api/workspace';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { ErrorMessage, Loading } from '../../components/Messages';
import { Page, Section } from '../../components/Page';
import { AddQaForm, AddTextForm, AddUrlForm, UploadFileForm } from './AddKnowledgeForms';
import { DocumentsTable } from './DocumentsTable';

export function KnowledgePage() {
  const { workspace, canManage } = useCurrentWorkspace();
  const documents = useKnowledge(workspace.id);
  const bots = useBots(workspace.id);
  const botList = bots.data ?? [];

  return (
    <Page title="Knowledge" description="What your bots answer from: web pages, text, files and Q&A pairs. New knowledge is read and indexed in the background; its status updates here.">
      <Section title="Documents" id="knowledge-list">
        {documents.isPending ? <Loading what="documents" /> : documents.isError ? <ErrorMessage error={documents.error} /> : <DocumentsTable documents={documents.data} bots={botList} />}
      </Section>
      {canManage ? (
        <>
          <Section title="Upload a file" id="upload-file">
            <UploadFileForm workspaceId={workspace.id} bots={botList} />
          </Section>
          <Section title="Add a web page or site" id="add-url">
            <AddUrlForm workspaceId={workspace.id} bots={botList} />
          </Section>
          <Section title="Add text" id="add-text">
            <AddTextForm workspaceId={workspace.id} bots={botList} />
          </Section>
          <Section title="Add a Q&A pair" id="add-qa" description="The answer is given whole when a visitor asks the question (or something close to it).">
            <AddQaForm workspaceId={workspace.id} bots={botList} />
          </Section>
        </>
      ) : null}
    </Page>
  );
}
