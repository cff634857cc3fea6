import type { ReactNode } from 'react';
import type { AskedQuestion } from '../../api/types';
import { DateTime } from '../../components/DateTime';

/** Questions as visitors asked them (user text, rendered as text), how often, when last; `action` adds a column. */
export function QuestionsTable({ label, questions, timesHeading, empty, action }: { label: string; questions: AskedQuestion[]; timesHeading: string; empty: string; action?: (q: AskedQuestion) => ReactNode }) {
  if (questions.length === 0) return <p className="empty">{empty}</p>;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Question</th>
            <th scope="col">{timesHeading}</th>
            <th scope="col">Last asked</th>
            {action ? <th scope="col">Action</th> : null}
          </tr>
        </thead>
        <tbody>
          {questions.map((q) => (
            <tr key={q.question}>
              <th scope="row" className="table__name">
                {q.question}
              </th>
              <td>{q.times}</td>
              <td>
                <DateTime value={q.last_asked_at} />
              </td>
              {action ? <td>{action(q)}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
