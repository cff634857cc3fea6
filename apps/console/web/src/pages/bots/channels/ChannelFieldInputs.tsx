import { TextInput } from '../../../components/Fields';
import type { ChannelField } from './channel-fields';

/** The placeholder of a stored credential's input in the edit form. */
export const KEEP_SECRET = 'stored — leave empty to keep';

/**
 * A kind's settings (text inputs; ports as numbers) and credentials (password inputs, write-only),
 * each labelled, optional ones marked. `stored` (editing): the credentials already stored, whose
 * inputs start empty and keep the stored value when left so.
 */
export function ChannelFieldInputs({
  fields,
  values,
  onChange,
  stored,
}: {
  fields: ChannelField[];
  values: Record<string, string>;
  onChange: (name: string, value: string) => void;
  stored?: readonly string[];
}) {
  return (
    <>
      {fields.map((f) => {
        const kept = f.secret && (stored?.includes(f.name) ?? false);
        return (
          <TextInput
            key={f.name}
            label={f.label}
            name={f.name}
            type={f.secret ? 'password' : f.port ? 'number' : 'text'}
            autoComplete="off"
            isRequired={!f.optional && !kept}
            // A stored credential left empty is kept: its placeholder says so, not "(optional)".
            markOptional={!kept}
            placeholder={kept ? KEEP_SECRET : undefined}
            inputProps={f.port ? { min: 1, max: 65535, step: 1, inputMode: 'numeric' } : undefined}
            value={values[f.name] ?? ''}
            onChange={(v) => onChange(f.name, v)}
            description={f.secret ? `${f.description ? `${f.description} ` : ''}Stored encrypted and never shown again.` : f.description}
          />
        );
      })}
    </>
  );
}
