import { useState } from 'react';
import { Form } from 'react-aria-components';
import { useActionSettings, useUpdateActionSettings } from '../../../api/actions';
import type { BotActionSettings } from '../../../api/types';
import { ActionButton } from '../../../components/ActionButton';
import { CheckboxField, TextInput } from '../../../components/Fields';
import { ErrorMessage, Loading, SuccessMessage } from '../../../components/Messages';
import { fieldErrors } from '../../../lib/field-errors';

const CALLS_MIN = 1;
const CALLS_MAX = 10;

function SettingsForm({ workspaceId, botId, saved, canManage }: { workspaceId: string; botId: string; saved: BotActionSettings; canManage: boolean }) {
  const update = useUpdateActionSettings(workspaceId, botId);
  const [booking, setBooking] = useState(saved.builtins.booking);
  const [lead, setLead] = useState(saved.builtins.lead);
  const [handoff, setHandoff] = useState(saved.builtins.handoff);
  const [calls, setCalls] = useState(String(saved.max_calls_per_turn));
  const edited =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      if (update.isSuccess || update.isError) update.reset();
    };
  return (
    <Form
      className="form form--wide action-settings"
      aria-labelledby="bot-action-settings"
      validationErrors={fieldErrors(update.error, ([field]) => (field === 'max_calls_per_turn' ? field : null))}
      onSubmit={(e) => {
        e.preventDefault();
        update.mutate({ builtins: { booking, lead, handoff }, max_calls_per_turn: Number(calls) });
      }}
    >
      <h3 id="bot-action-settings" className="action-form__title">
        Built-in actions and limit
      </h3>
      <div className="action-group" role="group" aria-label="Built-in actions">
        <CheckboxField isSelected={booking} onChange={edited(setBooking)} isDisabled={!canManage}>
          Request a booking
        </CheckboxField>
        <CheckboxField isSelected={lead} onChange={edited(setLead)} isDisabled={!canManage}>
          Capture a lead
        </CheckboxField>
        <CheckboxField isSelected={handoff} onChange={edited(setHandoff)} isDisabled={!canManage}>
          Hand off to a person
        </CheckboxField>
      </div>
      <TextInput
        label="Actions per turn"
        name="max_calls_per_turn"
        type="number"
        isRequired
        isReadOnly={!canManage}
        inputProps={{ min: CALLS_MIN, max: CALLS_MAX, step: 1, inputMode: 'numeric' }}
        value={calls}
        onChange={edited(setCalls)}
        description={`How many actions the bot may call to answer one message, ${CALLS_MIN} to ${CALLS_MAX}.`}
      />
      <ErrorMessage error={update.error} title="The action settings were not saved." />
      {update.isSuccess ? <SuccessMessage>Action settings saved.</SuccessMessage> : null}
      {canManage ? (
        <div className="form__actions">
          <ActionButton type="submit" className="button button--primary" isPending={update.isPending}>
            Save action settings
          </ActionButton>
        </div>
      ) : null}
    </Form>
  );
}

/** The built-in actions (booking, lead, hand-off) and the calls per turn; read-only for members. */
export function ActionSettingsSection({ workspaceId, botId, canManage }: { workspaceId: string; botId: string; canManage: boolean }) {
  const settings = useActionSettings(workspaceId, botId);
  if (settings.isPending) return <Loading what="the action settings" />;
  if (settings.isError) return <ErrorMessage error={settings.error} title="The action settings could not be loaded." />;
  return <SettingsForm key={botId} workspaceId={workspaceId} botId={botId} saved={settings.data} canManage={canManage} />;
}
