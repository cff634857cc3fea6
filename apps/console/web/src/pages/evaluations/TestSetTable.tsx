import { useDeleteEvalCase, useUpdateEvalCase } from '../../api/evaluations';
import type { EvalCase } from '../../api/types';
import { ConfirmButton } from '../../components/Dialogs';
import { expectationText } from '../../lib/evaluations';
import { bodyOf, CaseDialog, draftOf } from './CaseDialog';

const SOURCE_TEXT: Record<EvalCase['source'], string> = { manual: 'Added here', import: 'Imported', transcript: 'A transcript', analytics: 'Analytics' };

function Expected({ c }: { c: EvalCase }) {
  if (c.expect !== 'facts') return <span>{expectationText(c)}</span>;
  return (
    <div>
      <span className="muted small">Contains:</span>
      <ul className="eval-facts">
        {c.facts.map((f, i) => (
          <li key={i}>{f}</li>
        ))}
      </ul>
    </div>
  );
}

function EditCase({ workspaceId, botId, c, describedBy }: { workspaceId: string; botId: string; c: EvalCase; describedBy: string }) {
  const update = useUpdateEvalCase(workspaceId, botId);
  return (
    <CaseDialog
      trigger="Edit"
      describedBy={describedBy}
      title="Edit case"
      initial={draftOf(c)}
      submit="Save case"
      isPending={update.isPending}
      error={update.error}
      onOpen={() => update.reset()}
      onSave={(draft) => update.mutateAsync({ caseId: c.id, body: bodyOf(draft) })}
    />
  );
}

function Row({ workspaceId, botId, c, canManage }: { workspaceId: string; botId: string; c: EvalCase; canManage: boolean }) {
  const remove = useDeleteEvalCase(workspaceId, botId);
  const nameId = `eval-case-${c.id}`;
  return (
    <tr>
      <th scope="row" id={nameId} className="table__name eval-question">
        {c.question}
      </th>
      <td>{c.language ?? <span className="muted">Any</span>}</td>
      <td>
        <Expected c={c} />
      </td>
      <td>{SOURCE_TEXT[c.source]}</td>
      {canManage ? (
        <td className="table__actions">
          <div className="actions__buttons">
            <EditCase workspaceId={workspaceId} botId={botId} c={c} describedBy={nameId} />
            <ConfirmButton trigger="Delete" title="Delete this case?" describedBy={nameId} onConfirm={() => remove.mutateAsync(c.id)}>
              <p>“{c.question}” leaves the test set. Earlier runs keep their results for it.</p>
            </ConfirmButton>
          </div>
        </td>
      ) : null}
    </tr>
  );
}

/** The bot's test set: each case's question, reply language and what a good reply does (user text, as text). */
export function TestSetTable({ workspaceId, botId, cases, canManage }: { workspaceId: string; botId: string; cases: EvalCase[]; canManage: boolean }) {
  if (cases.length === 0) return <p className="empty">No cases yet. Add one, import a CSV or JSONL file, or add questions from a transcript or the Analytics page.</p>;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Test set table">
      <table className="table table--eval-cases">
        <thead>
          <tr>
            <th scope="col">Question</th>
            <th scope="col">Language</th>
            <th scope="col">Expected</th>
            <th scope="col">Source</th>
            {canManage ? (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {cases.map((c) => (
            <Row key={c.id} workspaceId={workspaceId} botId={botId} c={c} canManage={canManage} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
