import { CheckboxGroup, FieldError, Label, Text } from 'react-aria-components';
import type { Bot } from '../../api/types';
import { CheckboxItem } from '../../components/Fields';
import { ErrorMessage } from '../../components/Messages';

/** The bots a token is limited to (names are the workspace's own text, rendered as text). */
export function BotChoice({ bots, error, value, onChange }: { bots: Bot[]; error: unknown; value: string[]; onChange: (ids: string[]) => void }) {
  if (error) return <ErrorMessage error={error} title="The bots could not be loaded." />;
  return (
    <CheckboxGroup className="choice-group choice-group--nested" value={value} onChange={onChange} isRequired name="bot_ids" validate={(v) => (v.length === 0 ? 'Choose at least one bot.' : null)}>
      <Label className="field__label">Chosen bots</Label>
      {bots.length === 0 ? (
        <Text slot="description" className="field__description">
          This workspace has no bots yet.
        </Text>
      ) : (
        <div className="choice-group__grid">
          {bots.map((b) => (
            <CheckboxItem key={b.id} value={b.id}>
              {b.name}
            </CheckboxItem>
          ))}
        </div>
      )}
      <FieldError className="field__error" />
    </CheckboxGroup>
  );
}
