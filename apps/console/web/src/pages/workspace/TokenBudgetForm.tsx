import { useState } from 'react';
import { Form } from 'react-aria-components';
import { useSetTokenBudget, useTokenUsage } from '../../api/analytics';
import { ActionButton } from '../../components/ActionButton';
import { TextInput } from '../../components/Fields';
import { ErrorMessage, Loading, SuccessMessage } from '../../components/Messages';
import { BudgetLine } from '../analytics/TokenUsageTable';

/**
 * The workspace's monthly token budget (issue 32): prompt plus completion tokens a calendar month
 * for every bot; past it, chat answers 402 like the message quota. Owners and admins set or clear it.
 */
export function TokenBudgetSection({ workspaceId, canManage }: { workspaceId: string; canManage: boolean }) {
  const usage = useTokenUsage(workspaceId, null);
  if (usage.isPending) return <Loading what="the token budget" />;
  if (usage.isError) return <ErrorMessage error={usage.error} title="The token budget could not be loaded." />;
  return (
    <>
      <BudgetLine budget={usage.data.budget} />
      {/* Members see the budget as text: the Workspace page has no form for them. */}
      {canManage ? <TokenBudgetForm workspaceId={workspaceId} saved={usage.data.budget.monthly_tokens} /> : null}
    </>
  );
}

function TokenBudgetForm({ workspaceId, saved }: { workspaceId: string; saved: number | null }) {
  const set = useSetTokenBudget(workspaceId);
  const [value, setValue] = useState(saved === null ? '' : String(saved));
  const [invalid, setInvalid] = useState<string | null>(null);
  return (
    <Form
      className="form"
      aria-label="Token budget"
      validationErrors={invalid ? { monthly_tokens: invalid } : {}}
      onSubmit={(e) => {
        e.preventDefault();
        const text = value.replace(/[\s,._]/g, '');
        if (text !== '' && !/^\d{1,13}$/.test(text)) return setInvalid('Write a whole number of tokens, or leave it empty for no budget.');
        const tokens = text === '' ? null : Number(text);
        if (tokens !== null && tokens < 1) return setInvalid('The budget must be at least 1 token; leave it empty for no budget.');
        setInvalid(null);
        set.mutate(tokens);
      }}
    >
      <ErrorMessage error={set.error} title="The budget was not saved." />
      <TextInput
        label="Monthly token budget"
        name="monthly_tokens"
        inputMode="numeric"
        value={value}
        onChange={(v) => {
          setValue(v);
          setInvalid(null);
          if (set.isSuccess || set.isError) set.reset();
        }}
        description="Prompt plus completion tokens a calendar month (UTC), every bot together. Once reached, chat answers 402 until the month ends. Empty: no budget."
      />
      {set.isSuccess ? <SuccessMessage>Budget saved.</SuccessMessage> : null}
      <div className="form__actions">
        <ActionButton type="submit" className="button button--primary" isPending={set.isPending}>
          Save budget
        </ActionButton>
      </div>
    </Form>
  );
}
