import { useState } from 'react';
import { Form } from 'react-aria-components';
import { useChangeLeadStatus } from '../../api/records';
import type { Lead } from '../../api/types';
import { ActionButton } from '../../components/ActionButton';
import { SelectInput, TextAreaInput } from '../../components/Fields';
import { ErrorMessage, SuccessMessage } from '../../components/Messages';
import { LEAD_STATUS_OPTIONS } from '../../lib/records';

/** "Change status" with an optional note (owners and admins); the change is recorded with who and when. */
export function LeadStatusForm({ workspaceId, lead }: { workspaceId: string; lead: Lead }) {
  const change = useChangeLeadStatus(workspaceId, lead.id);
  const [status, setStatus] = useState<Lead['status']>(lead.status);
  const [note, setNote] = useState('');
  return (
    <Form
      className="form"
      onSubmit={(e) => {
        e.preventDefault();
        change.mutate({ status, ...(note.trim() ? { note } : {}) }, { onSuccess: () => setNote('') });
      }}
    >
      <ErrorMessage error={change.error} title="The status was not changed." />
      <SelectInput
        label="New status"
        id="lead-status"
        value={status}
        onChange={(v) => {
          setStatus(v as Lead['status']);
          change.reset();
        }}
        options={LEAD_STATUS_OPTIONS}
      />
      <TextAreaInput label="Note" name="note" value={note} onChange={setNote} rows={2} maxLength={1000} description="Kept with the change in the history." />
      {change.isSuccess ? <SuccessMessage>Status changed to {LEAD_STATUS_OPTIONS.find((o) => o.value === change.data.status)?.label}.</SuccessMessage> : null}
      <div className="form__actions">
        <ActionButton type="submit" className="button button--primary" isPending={change.isPending}>
          Change status
        </ActionButton>
      </div>
    </Form>
  );
}
