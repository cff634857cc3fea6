import { formatNumber } from '../../lib/format';
import type { Bot } from '../../api/types';

export interface TokenDay {
  day: string;
  chatbot_id: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  answers: number;
}

export interface TokenBudget {
  monthly_tokens: number | null;
  used_this_month: number;
  month_start: string;
}

const n = formatNumber;

/** This month's tokens against the budget, in words. */
export function BudgetLine({ budget }: { budget: TokenBudget }) {
  return (
    <p className="small">
      This month: {n(budget.used_this_month)} tokens
      {budget.monthly_tokens === null ? ' (no monthly token budget).' : ` of a monthly budget of ${n(budget.monthly_tokens)}.`}
    </p>
  );
}

/** Tokens per bot and day as the model's provider reported them (newest day first). */
export function TokenUsageTable({ days, bots }: { days: TokenDay[]; bots: Bot[] }) {
  if (days.length === 0) return <p className="empty">No tokens reported in the last 30 days. The built-in answers (without a chat model) use none.</p>;
  const names = new Map(bots.map((b) => [b.id, b.name]));
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Token usage table">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Bot</th>
            <th scope="col">Answers</th>
            <th scope="col">Prompt tokens</th>
            <th scope="col">Completion tokens</th>
          </tr>
        </thead>
        <tbody>
          {days.map((d) => (
            <tr key={`${d.day}-${d.chatbot_id ?? 'none'}`}>
              <th scope="row">{d.day}</th>
              <td className="table__name">{d.chatbot_id ? (names.get(d.chatbot_id) ?? 'A deleted bot') : 'No bot'}</td>
              <td>{n(d.answers)}</td>
              <td>{n(d.prompt_tokens)}</td>
              <td>{n(d.completion_tokens)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
