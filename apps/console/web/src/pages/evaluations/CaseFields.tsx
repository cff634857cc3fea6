import { Label, Radio, RadioGroup, Text } from 'react-aria-components';
import type { EvalExpectation } from '../../api/types';
import { TextAreaInput, TextInput } from '../../components/Fields';
import { asExpectation, EVAL_FACT_MAX, EVAL_FACTS_MAX, EVAL_LANGUAGE_MAX, EVAL_QUESTION_MAX, EXPECTATION_OPTIONS } from '../../lib/evaluations';

export interface CaseDraft {
  question: string;
  language: string;
  expect: EvalExpectation;
  /** One fact per line. */
  facts: string;
}

export const emptyDraft = (question = '', expect: EvalExpectation = 'facts'): CaseDraft => ({ question, language: '', expect, facts: '' });

/** What a good reply must do: three choices, each with its meaning. */
function ExpectChoice({ value, onChange }: { value: EvalExpectation; onChange: (v: EvalExpectation) => void }) {
  return (
    <RadioGroup className="choice-group" value={value} onChange={(v) => onChange(asExpectation(v))} isRequired>
      <Label className="field__label">A good reply</Label>
      <div className="choice-group__grid">
        {EXPECTATION_OPTIONS.map((o) => (
          <Radio key={o.value} value={o.value} className="radio">
            {o.label}
          </Radio>
        ))}
      </div>
      <Text slot="description" className="field__description">
        {EXPECTATION_OPTIONS.find((o) => o.value === value)?.description}
      </Text>
    </RadioGroup>
  );
}

/** The fields of a case: question, what a good reply does, its facts (one per line) and the reply language. */
export function CaseFields({ draft, onChange }: { draft: CaseDraft; onChange: (d: CaseDraft) => void }) {
  return (
    <>
      <TextAreaInput label="Question" name="question" isRequired rows={2} maxLength={EVAL_QUESTION_MAX} value={draft.question} onChange={(question) => onChange({ ...draft, question })} />
      <ExpectChoice value={draft.expect} onChange={(expect) => onChange({ ...draft, expect })} />
      {draft.expect === 'facts' ? (
        <TextAreaInput
          label="Facts"
          name="facts"
          isRequired
          rows={3}
          maxLength={EVAL_FACTS_MAX * (EVAL_FACT_MAX + 1)}
          value={draft.facts}
          onChange={(facts) => onChange({ ...draft, facts })}
          description={`One per line (up to ${EVAL_FACTS_MAX}): the reply must contain each, ignoring case, accents, spacing and number formats.`}
        />
      ) : null}
      <TextInput
        label="Language"
        name="language"
        maxLength={EVAL_LANGUAGE_MAX}
        value={draft.language}
        onChange={(language) => onChange({ ...draft, language })}
        placeholder="e.g. de"
        description="The reply language to ask for (a language tag). Empty: as a visitor who names none."
      />
    </>
  );
}
