import { useState } from 'react';
import { Button, Dialog, DialogTrigger, Form, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { useTestBotAction } from '../../../api/actions';
import type { ActionTestResult, BotAction, TestBotAction } from '../../../api/types';
import { TextAreaInput } from '../../../components/Fields';
import { ErrorMessage } from '../../../components/Messages';
import { sampleInput } from './parameters';
import { FormDialogActions } from '../../../components/Dialogs';

/** What the endpoint answered: ok or failed in words (colour and icon only repeat them), the status, the time, and the body as text. */
function TestResult({ result }: { result: ActionTestResult }) {
  return (
    <div className={`action-test action-test--${result.ok ? 'ok' : 'failed'}`} role={result.ok ? 'status' : 'alert'}>
      <p className="action-test__head">
        <span className="action-test__icon" aria-hidden="true" />
        <strong>{result.ok ? 'Succeeded' : 'Failed'}</strong>
        <span>{result.message}</span>
      </p>
      <dl className="action-test__facts">
        <div>
          <dt>Status</dt>
          <dd>{result.status ?? 'None'}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{result.duration_ms} ms</dd>
        </div>
      </dl>
      {result.result ? (
        <>
          <p className="action-test__label">Result{result.truncated ? ' (cut to the size the model would get)' : ''}</p>
          {/* The endpoint's body as text: React escapes it, it is never rendered as HTML. */}
          <pre className="code-block action-test__result">{result.result}</pre>
        </>
      ) : null}
    </div>
  );
}

/** "Test" → the "Test action" dialog: sample input as JSON, "Run test", and the outcome. */
export function TestActionDialog({ workspaceId, botId, action, describedBy }: { workspaceId: string; botId: string; action: BotAction; describedBy: string }) {
  const test = useTestBotAction(workspaceId, botId);
  const [input, setInput] = useState('{}');
  const [inputError, setInputError] = useState<string | null>(null);
  return (
    <DialogTrigger
      onOpenChange={(open) => {
        if (open) {
          test.reset();
          setInput(sampleInput(action.parameters));
          setInputError(null);
        }
      }}
    >
      <Button className="button button--secondary button--small" aria-describedby={describedBy}>
        Test
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable={!test.isPending}>
        <Modal className="modal modal--wide">
          <Dialog className="dialog">
            {({ close }) => (
              <Form
                className="form form--inline"
                validationErrors={inputError ? { input: inputError } : {}}
                onSubmit={(e) => {
                  e.preventDefault();
                  let value: unknown;
                  try {
                    value = JSON.parse(input);
                  } catch (err) {
                    setInputError(`Not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
                    return;
                  }
                  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
                    setInputError('The sample input must be a JSON object, e.g. {"order_id": "A-1001"}.');
                    return;
                  }
                  setInputError(null);
                  test.mutate({ actionId: action.id, body: { input: value as TestBotAction['input'] } });
                }}
              >
                <Heading slot="title" className="dialog__title">
                  Test action
                </Heading>
                <p>
                  One real call of <strong>{action.name}</strong> ({action.method} <span className="action-url">{action.url}</span>) with this input, through the installation's outbound
                  policy. Header values are sent but never shown.
                </p>
                <TextAreaInput
                  label="Sample input"
                  name="input"
                  rows={6}
                  value={input}
                  onChange={(v) => {
                    setInput(v);
                    setInputError(null);
                  }}
                  markOptional={false}
                  description="A JSON object with the parameters' values."
                />
                <ErrorMessage error={test.error} title="The test did not run." />
                {test.data && !test.isPending ? <TestResult result={test.data} /> : null}
                <FormDialogActions onCancel={close} pending={test.isPending} submit="Run test" cancel="Close" />
              </Form>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}
