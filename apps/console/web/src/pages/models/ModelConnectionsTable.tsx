import { useEffect } from 'react';
import { useDeleteModelConnection, useTestModelConnection } from '../../api/models';
import { errorMessage } from '../../api/errors';
import type { ModelConnection, ModelConnectionTestResult } from '../../api/types';
import { ActionButton } from '../../components/ActionButton';
import { ConfirmButton } from '../../components/Dialogs';
import { defaultBaseUrl, providerLabel } from '../../lib/models';
import { EditModelConnectionDialog } from './EditModelConnectionDialog';

/** The outcome of "Test connection", beside the row's buttons: role status when the provider answered, alert when not. */
function TestOutcome({ result, error }: { result: ModelConnectionTestResult | undefined; error: unknown }) {
  if (error) {
    return (
      <p className="model-test model-test--failed" role="alert">
        <span className="model-test__icon" aria-hidden="true" />
        <span>{errorMessage(error)}</span>
      </p>
    );
  }
  if (!result) return null;
  const facts = [result.status !== null ? `HTTP ${result.status}` : null, `${result.latency_ms} ms`].filter(Boolean).join(', ');
  return (
    <p className={`model-test model-test--${result.ok ? 'ok' : 'failed'}`} role={result.ok ? 'status' : 'alert'}>
      <span className="model-test__icon" aria-hidden="true" />
      <span>
        {result.message} <span className="muted">({facts})</span>
      </span>
    </p>
  );
}

function Row({ workspaceId, connection: c, canManage }: { workspaceId: string; connection: ModelConnection; canManage: boolean }) {
  const test = useTestModelConnection(workspaceId);
  const remove = useDeleteModelConnection(workspaceId);
  // An outcome is of the connection as it was tried: a saved change clears it.
  const resetTest = test.reset;
  useEffect(() => resetTest(), [c.updated_at, resetTest]);
  const nameId = `model-connection-${c.id}`;
  // A connection only the knowledge uses is an embedding model: it is tried with one short text, any other with a one-word chat.
  const use = c.embeddings && c.bots === 0 ? 'embeddings' : 'chat';
  return (
    <tr>
      <th scope="row" id={nameId} className="table__name">
        {c.name}
      </th>
      <td>{providerLabel(c.kind)}</td>
      <td className="table__model">
        <code>{c.model}</code>
      </td>
      <td className="table__url">{c.base_url ?? <span className="muted table__default">Default: {defaultBaseUrl(c.kind)}</span>}</td>
      <td>{c.has_key ? 'Yes' : 'No'}</td>
      <td>{c.bots}</td>
      <td>{c.embeddings ? 'Yes' : 'No'}</td>
      {canManage ? (
        <td className="table__actions">
          <div className="model-actions">
            <div className="model-actions__buttons">
              <ActionButton
                className="button button--secondary button--small"
                aria-describedby={nameId}
                isPending={test.isPending}
                onPress={() => test.mutate({ connectionId: c.id, use })}
              >
                Test connection
              </ActionButton>
              <EditModelConnectionDialog workspaceId={workspaceId} connection={c} describedBy={nameId} />
              <ConfirmButton trigger="Delete" title={`Delete “${c.name}”?`} describedBy={nameId} onConfirm={() => remove.mutateAsync(c.id)}>
                <p>
                  {c.bots === 0
                    ? 'No bot answers through it.'
                    : `${c.bots === 1 ? 'One bot answers' : `${c.bots} bots answer`} through it: from their next message they use the installation's model.`}{' '}
                  Its stored key is deleted with it.
                </p>
                {c.embeddings ? <p>The workspace's knowledge is embedded with it: switch the embedding model first.</p> : null}
              </ConfirmButton>
            </div>
            {test.isPending ? null : <TestOutcome result={test.data} error={test.error} />}
          </div>
        </td>
      ) : null}
    </tr>
  );
}

/** The workspace's model connections; the key is never shown, only whether one is set. */
export function ModelConnectionsTable({ workspaceId, connections, canManage }: { workspaceId: string; connections: ModelConnection[]; canManage: boolean }) {
  if (connections.length === 0) return <p className="empty">No connections yet: the bots answer with the installation's model.</p>;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Model connections table">
      <table className="table table--models">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Provider</th>
            <th scope="col">Model</th>
            <th scope="col">Base URL</th>
            <th scope="col">Key set</th>
            <th scope="col">Bots</th>
            <th scope="col">Embeddings</th>
            {canManage ? (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {connections.map((c) => (
            <Row key={c.id} workspaceId={workspaceId} connection={c} canManage={canManage} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
