import { useState } from 'react';
import { Form } from 'react-aria-components';
import { useEvalSettings, useUpdateEvalSettings } from '../../api/evaluations';
import type { EvalSettings } from '../../api/types';
import { ActionButton } from '../../components/ActionButton';
import { CheckboxField, TextInput } from '../../components/Fields';
import { ErrorMessage, Loading, SuccessMessage } from '../../components/Messages';
import { formatPercent } from '../../lib/evaluations';

const gateText = (rate: number | null) => (rate === null ? '' : String(Math.round(rate * 1000) / 10));

function Editor({ workspaceId, botId, settings }: { workspaceId: string; botId: string; settings: EvalSettings }) {
  const update = useUpdateEvalSettings(workspaceId, botId);
  const [gate, setGate] = useState(gateText(settings.min_pass_rate));
  const [autoRun, setAutoRun] = useState(settings.auto_run);
  const [judge, setJudge] = useState(settings.judge);
  const [gateError, setGateError] = useState<string | null>(null);
  return (
    <Form
      className="form form--wide eval-settings-form"
      validationErrors={gateError ? { gate: gateError } : {}}
      onSubmit={(e) => {
        e.preventDefault();
        const text = gate.trim();
        const percent = text === '' ? null : Number(text);
        if (percent !== null && (!Number.isFinite(percent) || percent < 0 || percent > 100)) {
          setGateError('A percentage from 0 to 100, or empty for no gate.');
          return;
        }
        setGateError(null);
        update.mutate({ min_pass_rate: percent === null ? null : percent / 100, auto_run: autoRun, judge });
      }}
    >
      <ErrorMessage error={update.error} title="The settings were not saved." />
      {update.isSuccess && !update.isPending ? <SuccessMessage>Settings saved.</SuccessMessage> : null}
      <TextInput
        label="Gate (pass rate, %)"
        name="gate"
        type="number"
        markOptional={false}
        inputProps={{ min: 0, max: 100, step: 'any', inputMode: 'decimal' }}
        value={gate}
        onChange={(v) => {
          setGate(v);
          update.reset();
        }}
        description="A run passing fewer cases e-mails the owners and admins and shows a banner in the console. Empty: no gate."
      />
      <CheckboxField isSelected={autoRun} onChange={setAutoRun} name="auto_run">
        Run automatically after knowledge, behaviour or model changes
      </CheckboxField>
      <CheckboxField isSelected={judge} onChange={setJudge} name="judge">
        Also have the bot’s model judge each reply (grounded, correct, complete)
      </CheckboxField>
      <div className="form__actions">
        <ActionButton type="submit" className="button button--primary" isPending={update.isPending}>
          Save settings
        </ActionButton>
      </div>
    </Form>
  );
}

/** The bot's gate, automatic runs and judge: a form for owners and admins, facts for members. */
export function SettingsSection({ workspaceId, botId, canManage }: { workspaceId: string; botId: string; canManage: boolean }) {
  const settings = useEvalSettings(workspaceId, botId);
  if (settings.isPending) return <Loading what="evaluation settings" />;
  if (settings.isError) return <ErrorMessage error={settings.error} title="The evaluation settings could not be loaded." />;
  const s = settings.data;
  if (canManage) return <Editor key={botId} workspaceId={workspaceId} botId={botId} settings={s} />;
  return (
    <dl className="summary summary--card">
      <div>
        <dt>Gate</dt>
        <dd>{s.min_pass_rate === null ? 'None' : formatPercent(s.min_pass_rate)}</dd>
      </div>
      <div>
        <dt>Automatic runs</dt>
        <dd>{s.auto_run ? 'On' : 'Off'}</dd>
      </div>
      <div>
        <dt>Judge</dt>
        <dd>{s.judge ? 'On' : 'Off'}</dd>
      </div>
    </dl>
  );
}
