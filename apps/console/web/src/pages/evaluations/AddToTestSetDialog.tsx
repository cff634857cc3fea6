import { useState } from 'react';
import { useCreateEvalCase } from '../../api/evaluations';
import type { EvalCase } from '../../api/types';
import { useBots } from '../../api/workspace';
import { SelectInput } from '../../components/Fields';
import { EVAL_QUESTION_MAX } from '../../lib/evaluations';
import { bodyOf, CaseDialog } from './CaseDialog';
import { emptyDraft } from './CaseFields';

interface AddToTestSetProps {
  workspaceId: string;
  question: string;
  /** The bot whose test set gets the case; null: the person picks one. */
  botId: string | null;
  source: 'transcript' | 'analytics';
  onAdded: (added: { case: EvalCase; botId: string; botName: string }) => void;
}

/**
 * "Add to test set" (issue 33) beside a visitor's question (a transcript, the Analytics page's
 * unanswered questions): the question (editable) and what a good reply must do (facts by default,
 * which the person fills in) become a case of the bot's test set.
 */
export function AddToTestSetDialog({ workspaceId, question, botId, source, onAdded }: AddToTestSetProps) {
  const create = useCreateEvalCase(workspaceId);
  const bots = useBots(workspaceId);
  const [chosen, setChosen] = useState<string>(botId ?? '');
  const target = botId ?? chosen;
  const botName = (id: string) => bots.data?.find((b) => b.id === id)?.name ?? 'the bot';
  return (
    <CaseDialog
      trigger="Add to test set"
      triggerLabel={`Add to test set: ${question.slice(0, 200)}`}
      title="Add to test set"
      intro={<p className="muted">The question becomes a case of {botId ? `${botName(botId)}’s` : 'a bot’s'} test set, which every evaluation run asks. Say what a good reply must do.</p>}
      initial={emptyDraft(question.slice(0, EVAL_QUESTION_MAX))}
      submit="Add to test set"
      extra={
        botId ? null : (
          <SelectInput
            label="Bot"
            id={`add-case-bot-${source}`}
            value={chosen}
            onChange={setChosen}
            options={(bots.data ?? []).map((b) => ({ value: b.id, label: b.name }))}
            description="Whose test set gets the case."
          />
        )
      }
      isPending={create.isPending}
      error={create.error}
      onOpen={() => {
        create.reset();
        setChosen(botId ?? bots.data?.[0]?.id ?? '');
      }}
      onSave={async (draft) => {
        if (!target) throw new Error('Choose a bot');
        const created = await create.mutateAsync({ botId: target, body: { ...bodyOf(draft), source } });
        onAdded({ case: created, botId: target, botName: botName(target) });
      }}
    />
  );
}
