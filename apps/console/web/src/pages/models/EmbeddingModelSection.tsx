import { useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { keys } from '../../api/keys';
import { useEmbeddingSettings, useUpdateEmbedding } from '../../api/models';
import type { EmbeddingSettings, ModelConnection } from '../../api/types';
import { ActionButton } from '../../components/ActionButton';
import { SelectInput } from '../../components/Fields';
import { ErrorMessage, Loading, SuccessMessage } from '../../components/Messages';
import { connectionLabel, EMBEDDING_KINDS } from '../../lib/models';

const DEFAULT = '';

function connectionName(id: string | null, connections: ModelConnection[]): string {
  if (id === null) return 'Installation default';
  const c = connections.find((x) => x.id === id);
  return c ? connectionLabel(c) : 'A connection no longer listed';
}

/** "Re-embedding: 3 of 10 documents", as a progress bar (an SVG: the console's CSP allows no inline style). */
function ReindexProgress({ done, total }: { done: number; total: number }) {
  const ratio = total > 0 ? Math.min(1, done / total) : 0;
  return (
    <div className="reindex">
      <p id="reindex-label" className="reindex__label">
        Re-embedding: {done} of {total} documents
      </p>
      <div role="progressbar" aria-labelledby="reindex-label" aria-valuemin={0} aria-valuemax={total} aria-valuenow={done} className="reindex__bar">
        <svg className="usage-bar usage-bar--ok" viewBox="0 0 100 6" preserveAspectRatio="none" aria-hidden="true" focusable="false">
          <rect className="usage-bar__track" width="100" height="6" rx="3" />
          <rect className="usage-bar__fill" width={ratio * 100} height="6" rx="3" />
        </svg>
      </div>
      <p className="muted">The old index keeps answering until the new one is complete.</p>
    </div>
  );
}

/** The state of the index: re-embedding (progress), failed (why), or done just now. */
function IndexState({ settings, connections, finished }: { settings: EmbeddingSettings; connections: ModelConnection[]; finished: boolean }) {
  if (settings.status === 'reindexing') {
    return (
      <>
        <p>Switching to {connectionName(settings.target_connection_id, connections)}.</p>
        <ReindexProgress done={settings.done} total={settings.total} />
      </>
    );
  }
  if (settings.status === 'failed') {
    return (
      <div className="notice notice--error" role="alert">
        <span className="notice__icon" aria-hidden="true" />
        <div>
          <p className="notice__title">The switch to {connectionName(settings.target_connection_id, connections)} did not complete.</p>
          <p>{settings.error ?? 'The new index could not be filled.'}</p>
          <p>The old index still answers.</p>
        </div>
      </div>
    );
  }
  return finished ? <SuccessMessage>Re-embedding complete: the knowledge is searched with the new model.</SuccessMessage> : null;
}

function SwitchForm({ workspaceId, settings, choices }: { workspaceId: string; settings: EmbeddingSettings; choices: ModelConnection[] }) {
  const update = useUpdateEmbedding(workspaceId);
  // What the knowledge is (or is being) embedded with.
  const current = (settings.status === 'reindexing' ? settings.target_connection_id : settings.connection_id) ?? DEFAULT;
  const [choice, setChoice] = useState(current);
  const options = [{ value: DEFAULT, label: 'Installation default' }, ...choices.map((c) => ({ value: c.id, label: connectionLabel(c) }))];
  // A saved choice no longer offered (an Anthropic connection cannot embed) stays visible rather than silently replaced.
  if (!options.some((o) => o.value === choice)) options.push({ value: choice, label: 'A connection no longer listed' });
  return (
    <Form
      className="form form--wide"
      onSubmit={(e) => {
        e.preventDefault();
        update.mutate({ connection_id: choice === DEFAULT ? null : choice });
      }}
    >
      <ErrorMessage error={update.error} title="The embedding model was not switched." />
      <SelectInput
        label="Embedding model"
        id="embedding-connection"
        value={choice}
        onChange={(v) => {
          setChoice(v);
          if (update.isError) update.reset();
        }}
        options={options}
        description="OpenAI-compatible and Ollama connections can embed. The connection is tried once first; then all of the workspace's knowledge is embedded again with it, in the background."
      />
      <div className="form__actions">
        <ActionButton type="submit" className="button button--primary" isPending={update.isPending} isDisabled={choice === current && settings.status !== 'failed'}>
          Switch embedding model
        </ActionButton>
      </div>
    </Form>
  );
}

/** The workspace's embedding model: what answers now, a switch's progress, and (owners and admins) the switch. */
export function EmbeddingModelSection({ workspaceId, connections, canManage }: { workspaceId: string; connections: ModelConnection[]; canManage: boolean }) {
  const settings = useEmbeddingSettings(workspaceId);
  const queryClient = useQueryClient();
  const status = settings.data?.status;
  const previous = useRef(status);
  const [finished, setFinished] = useState(false);
  useEffect(() => {
    if (previous.current === status) return;
    if (previous.current === 'reindexing') {
      // The switch ended: which connection embeds moved, and "Embeddings" in the table with it.
      void queryClient.invalidateQueries({ queryKey: keys.modelConnections(workspaceId), exact: true });
      setFinished(status === 'ready');
    } else if (status === 'reindexing') {
      setFinished(false);
    }
    previous.current = status;
  }, [status, queryClient, workspaceId]);

  if (settings.isPending) return <Loading what="the embedding model" />;
  if (settings.isError) return <ErrorMessage error={settings.error} title="The embedding model could not be loaded." />;
  const s = settings.data;
  const choices = connections.filter((c) => EMBEDDING_KINDS.includes(c.kind));
  return (
    <div className="stack-sm">
      <dl className="details details--embedding">
        <div>
          <dt>Embedded with</dt>
          <dd>{connectionName(s.connection_id, connections)}</dd>
        </div>
        <div>
          <dt>Current embedder</dt>
          <dd>
            <code>{s.embedder}</code>
          </dd>
        </div>
      </dl>
      <IndexState settings={s} connections={connections} finished={finished} />
      {canManage ? <SwitchForm workspaceId={workspaceId} settings={s} choices={choices} /> : null}
    </div>
  );
}
