import { useRef, useState } from 'preact/hooks';
import { WidgetApiError, errorKey } from './errors';
import type { Texts } from './texts';

export interface FieldSpec {
  /** The body member the API names in a validation error's path[1]. */
  name: string;
  label: string;
  type: 'text' | 'email' | 'tel' | 'textarea' | 'datetime-local';
  required?: boolean;
  autocomplete?: string;
  hint?: string;
  /** Other body members whose errors belong to this field. */
  alsoFor?: string[];
}

let nextId = 0;

interface FormProps {
  t: Texts;
  title: string;
  fields: FieldSpec[];
  submitLabel: string;
  /** Sends the values; a WidgetApiError with fields puts its messages next to them. */
  onSubmit(values: Record<string, string>): Promise<void>;
  onCancel?: () => void;
}

/** A form whose refusals from the API are shown next to their fields (aria-invalid, aria-describedby). */
export function Form({ t, title, fields, submitLabel, onSubmit, onCancel }: FormProps) {
  const [uid] = useState(() => `saf${++nextId}`);
  const [values, setValues] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (sending) return;
    setSending(true);
    setErrors({});
    setGeneral(null);
    try {
      await onSubmit(values);
    } catch (err) {
      const byField: Record<string, string> = {};
      const unplaced: string[] = [];
      if (err instanceof WidgetApiError) {
        for (const [member, message] of Object.entries(err.fields)) {
          const field = fields.find((f) => f.name === member || f.alsoFor?.includes(member));
          if (field) byField[field.name] ??= message;
          else unplaced.push(message);
        }
      }
      setErrors(byField);
      if (Object.keys(byField).length === 0 || unplaced.length) setGeneral(unplaced.length ? unplaced.join(' ') : t[errorKey(err)]);
      // Focus the first field in error, so a keyboard or screen-reader user lands on it.
      const first = fields.find((f) => byField[f.name]);
      if (first) (formRef.current?.querySelector(`#${uid}-${first.name}`) as HTMLElement | null)?.focus();
    } finally {
      setSending(false);
    }
  };

  return (
    <form ref={formRef} class="form" noValidate onSubmit={submit} aria-labelledby={`${uid}-title`}>
      <h3 id={`${uid}-title`} class="form-title">
        {title}
      </h3>
      {fields.map((f) => {
        const id = `${uid}-${f.name}`;
        const error = errors[f.name];
        const described = [f.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
        const common = {
          id,
          name: f.name,
          value: values[f.name] ?? '',
          required: f.required,
          'aria-required': f.required ? ('true' as const) : undefined,
          'aria-invalid': error ? ('true' as const) : undefined,
          'aria-describedby': described,
          autocomplete: f.autocomplete,
          onInput: (e: Event) => {
            const value = (e.currentTarget as HTMLInputElement).value;
            setValues((v) => ({ ...v, [f.name]: value }));
          },
        };
        return (
          <div class="field" key={f.name}>
            <label for={id}>
              {f.label}
              {f.required ? (
                <span class="req" aria-hidden="true">
                  {' *'}
                </span>
              ) : null}
            </label>
            {f.type === 'textarea' ? <textarea rows={3} {...common} /> : <input {...common} type={f.type as "text"} />}
            {f.hint ? (
              <p class="hint" id={`${id}-hint`}>
                {f.hint}
              </p>
            ) : null}
            {error ? (
              <p class="field-error" id={`${id}-error`}>
                {error}
              </p>
            ) : null}
          </div>
        );
      })}
      {general ? (
        <p class="error" role="alert">
          {general}
        </p>
      ) : null}
      <div class="form-actions">
        {onCancel ? (
          <button type="button" class="secondary" onClick={onCancel}>
            {t.cancel}
          </button>
        ) : null}
        {sending ? (
          <span class="hint" role="status">
            {t.sending}
          </span>
        ) : null}
        <button type="submit" class="primary" aria-disabled={sending ? 'true' : undefined}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}

/** The values a body carries: trimmed, empty ones left out. */
export function filled(values: Record<string, string>, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) {
    const v = (values[n] ?? '').trim();
    if (v) out[n] = v;
  }
  return out;
}
