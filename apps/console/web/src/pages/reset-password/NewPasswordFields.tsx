import { TextInput } from '../../components/Fields';

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

/** A new password typed twice (12 to 256 characters). */
export function NewPasswordFields({ password, confirm, onPassword, onConfirm, label = 'New password' }: { password: string; confirm: string; onPassword: (v: string) => void; onConfirm: (v: string) => void; label?: string }) {
  return (
    <>
      <TextInput
        label={label}
        name="new-password"
        type="password"
        autoComplete="new-password"
        isRequired
        minLength={PASSWORD_MIN}
        maxLength={PASSWORD_MAX}
        value={password}
        onChange={onPassword}
        description={`${PASSWORD_MIN} to ${PASSWORD_MAX} characters${password ? ` (${password.length} typed)` : ''}.`}
      />
      <TextInput
        label={`Repeat the ${label.toLowerCase()}`}
        name="confirm-password"
        type="password"
        autoComplete="new-password"
        isRequired
        value={confirm}
        onChange={onConfirm}
        validate={(v) => (v && v !== password ? 'The two passwords differ.' : null)}
      />
    </>
  );
}
