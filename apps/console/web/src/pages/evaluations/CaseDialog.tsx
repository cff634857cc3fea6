import { useState, type ReactNode } from 'react';
import { Button, Dialog, DialogTrigger, Form, Heading, Modal, ModalOverlay } from 'react-aria-components';
import type { CreateEvalCase, EvalCase } from '../../api/types';
import { ErrorMessage } from '../../components/Messages';
import { fieldErrors } from '../../lib/field-errors';
import { factsOf } from '../../lib/evaluations';
import { CaseFields, emptyDraft, type CaseDraft } from './CaseFields';
import { FormDialogActions } from '../../components/Dialogs';

export const draftOf = (c: EvalCase): CaseDraft => ({ question: c.question, language: c.language ?? '', expect: c.expect, facts: c.facts.join('\n') });

/** The body of a draft: facts only when the reply must contain them; an empty language is none. */
export function bodyOf(d: CaseDraft): CreateEvalCase {
  return { question: d.question.trim(), language: d.language.trim() === '' ? null : d.language.trim(), expect: d.expect, facts: d.expect === 'facts' ? factsOf(d.facts) : [] };
}

interface CaseDialogProps {
  /** The trigger's text (its accessible name is `triggerLabel` when given). */
  trigger: string;
  triggerLabel?: string;
  triggerClass?: string;
  describedBy?: string;
  title: string;
  intro?: ReactNode;
  /** The draft the dialog starts from each time it opens. */
  initial: CaseDraft;
  submit: string;
  /** Extra fields before the case's (the bot, when the caller does not know it). */
  extra?: ReactNode;
  isPending: boolean;
  error: unknown;
  onOpen: () => void;
  /** Saves; resolves when done (the dialog closes), rejects to keep it open with the error. */
  onSave: (draft: CaseDraft) => Promise<unknown>;
}

/** A case in a dialog: add, edit, or "Add to test set" from a transcript or the Analytics page. */
export function CaseDialog({ trigger, triggerLabel, triggerClass = 'button button--secondary button--small', describedBy, title, intro, initial, submit, extra, isPending, error, onOpen, onSave }: CaseDialogProps) {
  const [draft, setDraft] = useState<CaseDraft>(initial);
  return (
    <DialogTrigger
      onOpenChange={(open) => {
        if (open) {
          onOpen();
          setDraft(initial);
        }
      }}
    >
      <Button className={triggerClass} aria-label={triggerLabel} aria-describedby={describedBy}>
        {trigger}
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable={!isPending}>
        <Modal className="modal">
          <Dialog className="dialog">
            {({ close }) => (
              <Form
                className="form"
                validationErrors={fieldErrors(error, ([field]) => field)}
                onSubmit={(e) => {
                  e.preventDefault();
                  onSave(draft).then(close, () => undefined);
                }}
              >
                <Heading slot="title" className="dialog__title">
                  {title}
                </Heading>
                {intro}
                <ErrorMessage error={error} title="The case was not saved." />
                {extra}
                <CaseFields draft={draft} onChange={setDraft} />
                <FormDialogActions onCancel={close} pending={isPending} submit={submit} />
              </Form>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}

export { emptyDraft };
