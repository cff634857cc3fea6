import { useEffect, useState } from 'react';
import { Form } from 'react-aria-components';
import { useBehaviour, useUpdateBehaviour } from '../../api/behaviour';
import { useModelConnections } from '../../api/models';
import type { BotBehaviour, ModelConnection, PlaygroundBehaviour } from '../../api/types';
import { ActionButton } from '../../components/ActionButton';
import { SelectInput, TextAreaInput, TextInput } from '../../components/Fields';
import { ErrorMessage, Loading, SuccessMessage } from '../../components/Messages';
import { fieldErrors } from '../../lib/field-errors';
import { connectionLabel, TEMPERATURE_MAX } from '../../lib/models';

const INSTRUCTIONS_MAX = 4000;
const FALLBACK_MAX = 1000;
const STARTERS_MAX = 4;

const LENGTHS = [
  { value: 'short', label: 'Short (one to three sentences)' },
  { value: 'normal', label: 'Normal (a few sentences)' },
  { value: 'detailed', label: 'Detailed (complete, with steps where useful)' },
];

const asLength = (v: string): 'short' | 'normal' | 'detailed' => (v === 'short' || v === 'detailed' ? v : 'normal');

/** The value of the "Model" select that stands for the installation's chat model. */
const INSTALLATION_DEFAULT = '';

/** "Installation default" and the workspace's connections; the saved one stays listed while they load (or if they cannot). */
function modelOptions(connections: ModelConnection[] | undefined, saved: string | null, loading: boolean): { value: string; label: string }[] {
  const options = [{ value: INSTALLATION_DEFAULT, label: 'Installation default' }, ...(connections ?? []).map((c) => ({ value: c.id, label: connectionLabel(c) }))];
  if (saved !== null && !options.some((o) => o.value === saved)) options.push({ value: saved, label: loading ? 'Loading the connections…' : 'A connection no longer listed' });
  return options;
}

/** The temperature field's text as the API takes it: empty is null (the installation's default). */
function temperatureValue(text: string): number | null {
  return text.trim() === '' ? null : Number(text);
}

/** Instructions, fallback reply, answer length, starter questions, model and temperature → "Save behaviour". */
export function BehaviourSection({ workspaceId, botId, canManage, onDraft }: { workspaceId: string; botId: string; canManage: boolean; onDraft?: (draft: PlaygroundBehaviour) => void }) {
  const behaviour = useBehaviour(workspaceId, botId);
  if (behaviour.isPending) return <Loading what="the behaviour" />;
  if (behaviour.isError) return <ErrorMessage error={behaviour.error} title="The behaviour could not be loaded." />;
  // Keyed by the bot only: saving replaces the cached copy, and the form (with its "saved" message) stays.
  return <BehaviourForm key={botId} workspaceId={workspaceId} botId={botId} saved={behaviour.data} canManage={canManage} onDraft={onDraft} />;
}

function BehaviourForm({
  workspaceId,
  botId,
  saved,
  canManage,
  onDraft,
}: {
  workspaceId: string;
  botId: string;
  saved: BotBehaviour;
  canManage: boolean;
  onDraft?: (draft: PlaygroundBehaviour) => void;
}) {
  const update = useUpdateBehaviour(workspaceId, botId);
  const connections = useModelConnections(workspaceId);
  const [instructions, setInstructions] = useState(saved.instructions);
  const [fallback, setFallback] = useState(saved.fallback_reply ?? '');
  const [length, setLength] = useState<string>(saved.answer_length);
  const [starters, setStarters] = useState(saved.starter_questions.join('\n'));
  const [model, setModel] = useState(saved.model_connection_id ?? INSTALLATION_DEFAULT);
  const [temperature, setTemperature] = useState(saved.temperature === null ? '' : String(saved.temperature));
  const edited = (set: (v: string) => void) => (v: string) => {
    set(v);
    if (update.isSuccess || update.isError) update.reset();
  };
  const starterList = starters.split('\n').map((s) => s.trim()).filter(Boolean);
  // The playground ("Try it") answers with the behaviour as it is in the form, saved or not.
  useEffect(() => {
    onDraft?.({ instructions, fallback_reply: fallback.trim() === '' ? null : fallback, answer_length: asLength(length) });
  }, [onDraft, instructions, fallback, length]);

  return (
    <Form
      className="form form--wide"
      aria-label="Behaviour"
      validationErrors={fieldErrors(update.error, ([field]) => field)}
      onSubmit={(e) => {
        e.preventDefault();
        update.mutate({
          instructions,
          fallback_reply: fallback.trim() === '' ? null : fallback,
          answer_length: asLength(length),
          starter_questions: starterList,
          model_connection_id: model === INSTALLATION_DEFAULT ? null : model,
          temperature: temperatureValue(temperature),
        });
      }}
    >
      <p className="field__description">
        Instructions and answer length need a chat model. Without one (the built-in answers quoted from your knowledge), the bot uses the fallback reply and the
        starter questions only.
      </p>
      <ErrorMessage error={update.error} title="The behaviour was not saved." />
      <TextAreaInput
        label="Instructions"
        name="instructions"
        rows={8}
        isReadOnly={!canManage}
        maxLength={INSTRUCTIONS_MAX}
        value={instructions}
        onChange={edited(setInstructions)}
        description={`Persona, tone, what to help with and what to decline. Needs a chat model. The bot still answers only from your knowledge. ${instructions.length} of ${INSTRUCTIONS_MAX} characters.`}
      />
      <TextAreaInput
        label="Fallback reply"
        name="fallback_reply"
        rows={2}
        markOptional={false}
        isReadOnly={!canManage}
        maxLength={FALLBACK_MAX}
        value={fallback}
        onChange={edited(setFallback)}
        description="What the bot says when your knowledge has no answer. Empty: a default reply, translated into the visitor's language."
      />
      <SelectInput
        label="Answer length"
        id="behaviour-answer-length"
        value={length}
        onChange={edited(setLength)}
        options={LENGTHS}
        isDisabled={!canManage}
        description="Needs a chat model."
      />
      <TextAreaInput
        label="Starter questions"
        name="starter_questions"
        rows={4}
        isReadOnly={!canManage}
        value={starters}
        onChange={edited(setStarters)}
        description={`One per line, at most ${STARTERS_MAX}. The widget shows them as buttons before the first message.`}
      />
      <SelectInput
        label="Model"
        id="behaviour-model"
        value={model}
        onChange={edited(setModel)}
        options={modelOptions(connections.data, model === INSTALLATION_DEFAULT ? null : model, connections.isPending)}
        isDisabled={!canManage}
        description="The chat model the bot answers with: one of the workspace's connections (the Models page), or the installation's."
      />
      {connections.isError ? <ErrorMessage error={connections.error} title="The model connections could not be loaded." /> : null}
      <TextInput
        label="Temperature"
        name="temperature"
        type="number"
        inputProps={{ min: 0, max: TEMPERATURE_MAX, step: 0.01, inputMode: 'decimal' }}
        markOptional={false}
        isReadOnly={!canManage}
        value={temperature}
        onChange={edited(setTemperature)}
        description={`0 to ${TEMPERATURE_MAX}: lower answers are steadier, higher ones more varied. Empty: the installation's default.`}
      />
      {update.isSuccess ? <SuccessMessage>Behaviour saved.</SuccessMessage> : null}
      {canManage ? (
        <div className="form__actions">
          <ActionButton type="submit" className="button button--primary" isPending={update.isPending}>
            Save behaviour
          </ActionButton>
        </div>
      ) : null}
    </Form>
  );
}
