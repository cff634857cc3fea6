import { TextInput } from '../../components/Fields';

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

/** A new password (12 to 256 characters) with a length counter. */
export function NewPasswordField({ label, value, onChange }: { label: string; value: string; onChange: (v: string) => void }) {
  return (
    <TextInput
      label={label}
      name="new-password"
      type="password"
      autoComplete="new-password"
      isRequired
      minLength={PASSWORD_MIN}
      maxLength={PASSWORD_MAX}
      value={value}
      onChange={onChange}
      description={`${PASSWORD_MIN} to ${PASSWORD_MAX} characters${value ? ` (${value.length} typed)` : ''}.`}
    />
  );
}
