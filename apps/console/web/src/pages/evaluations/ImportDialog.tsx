import { useState } from 'react';
import { Button, Dialog, DialogTrigger, Form, Heading, Label, Modal, ModalOverlay, Radio, RadioGroup } from 'react-aria-components';
import { useImportEvalCases } from '../../api/evaluations';
import type { EvalImportResult } from '../../api/types';
import { SelectInput } from '../../components/Fields';
import { ErrorMessage } from '../../components/Messages';
import { formatOfFile } from '../../lib/evaluations';
import { FormDialogActions } from '../../components/Dialogs';

/**
 * "Import": a CSV or JSONL file (read in the browser, sent as text) added to the test set or
 * replacing it. The service checks every line first: one bad line rejects the import, naming it.
 */
export function ImportDialog({ workspaceId, botId, onImported }: { workspaceId: string; botId: string; onImported: (result: EvalImportResult) => void }) {
  const importCases = useImportEvalCases(workspaceId, botId);
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState<'csv' | 'jsonl'>('csv');
  const [mode, setMode] = useState<'append' | 'replace'>('append');
  const [fileError, setFileError] = useState<string | null>(null);
  return (
    <DialogTrigger
      onOpenChange={(open) => {
        if (open) {
          importCases.reset();
          setFile(null);
          setFormat('csv');
          setMode('append');
          setFileError(null);
        }
      }}
    >
      <Button className="button button--secondary">Import</Button>
      <ModalOverlay className="modal-overlay" isDismissable={!importCases.isPending}>
        <Modal className="modal">
          <Dialog className="dialog">
            {({ close }) => (
              <Form
                className="form"
                onSubmit={async (e) => {
                  e.preventDefault();
                  if (!file) {
                    setFileError('Choose a file.');
                    return;
                  }
                  const content = await file.text();
                  importCases.mutate(
                    { format, content, mode },
                    {
                      onSuccess: (result) => {
                        close();
                        onImported(result);
                      },
                    },
                  );
                }}
              >
                <Heading slot="title" className="dialog__title">
                  Import a test set
                </Heading>
                <p className="muted">
                  CSV: a header row with <code>question</code>, <code>expect</code> (facts, unanswered or handoff), <code>facts</code> (separated by “|”), and optionally{' '}
                  <code>language</code> and <code>note</code>. JSONL: one JSON object per line with the same members, <code>facts</code> a list.
                </p>
                <ErrorMessage error={importCases.error} title="Nothing was imported." />
                <div className="field">
                  <label className="field__label" htmlFor="eval-import-file">
                    File
                  </label>
                  <input
                    id="eval-import-file"
                    className="field__input field__file"
                    type="file"
                    accept=".csv,.jsonl,.ndjson,text/csv,application/jsonl"
                    required
                    aria-invalid={fileError ? true : undefined}
                    aria-describedby={fileError ? 'eval-import-file-error' : undefined}
                    onChange={(e) => {
                      const chosen = e.currentTarget.files?.[0] ?? null;
                      setFile(chosen);
                      setFileError(null);
                      if (chosen) setFormat(formatOfFile(chosen.name));
                    }}
                  />
                  {fileError ? (
                    <p id="eval-import-file-error" className="field__error">
                      {fileError}
                    </p>
                  ) : null}
                </div>
                <SelectInput
                  label="Format"
                  id="eval-import-format"
                  value={format}
                  onChange={(v) => setFormat(v === 'jsonl' ? 'jsonl' : 'csv')}
                  options={[
                    { value: 'csv', label: 'CSV' },
                    { value: 'jsonl', label: 'JSONL' },
                  ]}
                />
                <RadioGroup className="choice-group" value={mode} onChange={(v) => setMode(v === 'replace' ? 'replace' : 'append')}>
                  <Label className="field__label">Cases</Label>
                  <div className="choice-group__row">
                    <Radio value="append" className="radio">
                      Add to the test set
                    </Radio>
                    <Radio value="replace" className="radio">
                      Replace the test set
                    </Radio>
                  </div>
                </RadioGroup>
                <FormDialogActions onCancel={close} pending={importCases.isPending} submit="Import cases" />
              </Form>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}
