import { useState } from 'react';
import { Button, Dialog, DialogTrigger, Form, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { useAddAnswer } from '../../api/analytics';
import { TextAreaInput, TextInput } from '../../components/Fields';
import { ErrorMessage } from '../../components/Messages';
import { FormDialogActions } from '../../components/Dialogs';

/**
 * "Add an answer" to an unanswered question: the question (editable) and the answer become a Q&A
 * knowledge document of the chosen bot (or of every bot), which the next chat answers from.
 */
export function AddAnswerDialog({ workspaceId, question, botId, onAdded }: { workspaceId: string; question: string; botId: string | null; onAdded: (question: string) => void }) {
  const add = useAddAnswer(workspaceId);
  const [q, setQ] = useState(question.slice(0, 300));
  const [answer, setAnswer] = useState('');
  return (
    <DialogTrigger
      onOpenChange={(open) => {
        if (open) {
          add.reset();
          setQ(question.slice(0, 300));
          setAnswer('');
        }
      }}
    >
      <Button className="button button--secondary button--small" aria-label={`Add an answer: ${question}`}>
        Add an answer
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable={!add.isPending}>
        <Modal className="modal">
          <Dialog className="dialog">
            {({ close }) => (
              <Form
                className="form"
                onSubmit={(e) => {
                  e.preventDefault();
                  add.mutate(
                    { question: q, answer, ...(botId ? { chatbotId: botId } : {}) },
                    {
                      onSuccess: () => {
                        close();
                        onAdded(q);
                      },
                    },
                  );
                }}
              >
                <Heading slot="title" className="dialog__title">
                  Add an answer
                </Heading>
                <p className="muted">{botId ? 'The answer is added to this bot’s knowledge.' : 'The answer is added to the knowledge of every bot.'} Visitors get it from their next question on.</p>
                <ErrorMessage error={add.error} title="The answer was not added." />
                <TextInput label="Question" name="question" isRequired maxLength={300} value={q} onChange={setQ} />
                <TextAreaInput label="Answer" name="answer" isRequired maxLength={4000} rows={6} value={answer} onChange={setAnswer} description="What the bot should reply, up to 4000 characters." />
                <FormDialogActions onCancel={close} pending={add.isPending} submit="Save answer" />
              </Form>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}
