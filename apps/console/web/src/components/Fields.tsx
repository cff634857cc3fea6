import type { InputHTMLAttributes, ReactNode } from 'react';
import { Checkbox, FieldError, Input, Label, Radio, RadioGroup, Text, TextArea, TextField, type TextFieldProps } from 'react-aria-components';

interface TextInputProps extends Omit<TextFieldProps, 'children' | 'className'> {
  label: string;
  description?: ReactNode;
  placeholder?: string;
}

/** Under a text field: its description (when it has one) and its validation message. */
function DescriptionAndError({ description }: { description?: ReactNode }) {
  return (
    <>
      {description ? (
        <Text slot="description" className="field__description">
          {description}
        </Text>
      ) : null}
      <FieldError className="field__error" />
    </>
  );
}

/**
 * A labelled text input with its description and validation message. `markOptional: false` when an
 * empty value means something of its own (the description says what); `inputProps` for a number
 * input's bounds (`min`, `max`, `step`).
 */
export function TextInput({
  label,
  description,
  placeholder,
  markOptional = true,
  inputProps,
  ...props
}: TextInputProps & { markOptional?: boolean; inputProps?: Pick<InputHTMLAttributes<HTMLInputElement>, 'min' | 'max' | 'step' | 'inputMode'> }) {
  return (
    <TextField className="field" {...props}>
      <Label className="field__label">
        {label}
        {props.isRequired || !markOptional ? null : <span className="field__optional"> (optional)</span>}
      </Label>
      <Input className="field__input" placeholder={placeholder} {...inputProps} />
      <DescriptionAndError description={description} />
    </TextField>
  );
}

/**
 * A labelled multi-line text field (one item per line), with its description and validation
 * message. `markOptional: false` when an empty value means something of its own (the description says what).
 */
export function TextAreaInput({ label, description, placeholder, rows = 4, markOptional = true, ...props }: TextInputProps & { rows?: number; markOptional?: boolean }) {
  return (
    <TextField className="field" {...props}>
      <Label className="field__label">
        {label}
        {props.isRequired || !markOptional ? null : <span className="field__optional"> (optional)</span>}
      </Label>
      <TextArea className="field__input field__textarea" placeholder={placeholder} rows={rows} spellCheck={false} />
      <DescriptionAndError description={description} />
    </TextField>
  );
}

interface SelectInputProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: { value: string; label: string }[];
  description?: string;
  id?: string;
  isDisabled?: boolean;
  hideLabel?: boolean;
  accessibleLabel?: string;
}

/**
 * A native select: keyboard and screen readers know it everywhere, and browser automation can
 * choose an option by its label (`selectOption`).
 */
export function SelectInput({ label, value, onChange, options, description, id, isDisabled, hideLabel, accessibleLabel }: SelectInputProps) {
  const selectId = id ?? `select-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <div className={`field field--select${hideLabel ? ' field--compact' : ''}`}>
      <label className={hideLabel ? 'visually-hidden' : 'field__label'} htmlFor={selectId}>
        {label}
      </label>
      <select
        id={selectId}
        className="field__select"
        value={value}
        disabled={isDisabled}
        aria-label={accessibleLabel}
        aria-describedby={description ? `${selectId}-description` : undefined}
        onChange={(e) => onChange(e.target.value)}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {description ? (
        <p id={`${selectId}-description`} className="field__description">
          {description}
        </p>
      ) : null}
    </div>
  );
}

function CheckboxBox() {
  return (
    <span className="checkbox__box" aria-hidden="true">
      <svg viewBox="0 0 18 18" focusable="false">
        <polyline points="3.5 9.5 7.5 13 14.5 5" />
      </svg>
    </span>
  );
}

/** A checkbox whose accessible name is exactly its visible label. */
export function CheckboxItem({ value, children, isDisabled }: { value: string; children: ReactNode; isDisabled?: boolean }) {
  return (
    <Checkbox value={value} className="checkbox" isDisabled={isDisabled}>
      <CheckboxBox />
      <span className="checkbox__label">{children}</span>
    </Checkbox>
  );
}

/** A checkbox on its own (not in a group), named exactly by its visible label. */
export function CheckboxField({ isSelected, onChange, children, isDisabled, name }: { isSelected: boolean; onChange: (selected: boolean) => void; children: ReactNode; isDisabled?: boolean; name?: string }) {
  return (
    <Checkbox className="checkbox" isSelected={isSelected} onChange={onChange} isDisabled={isDisabled} name={name}>
      <CheckboxBox />
      <span className="checkbox__label">{children}</span>
    </Checkbox>
  );
}

/**
 * "Bots": every bot of the workspace, or some (the token form and the consent page: "Chosen
 * bots"; a webhook: "One bot"). The caller shows the bot picker when `allBots` is false.
 */
export function BotScopeChoice({ allBots, onChange, someLabel = 'Chosen bots', someDisabled }: { allBots: boolean; onChange: (allBots: boolean) => void; someLabel?: string; someDisabled?: boolean }) {
  return (
    <RadioGroup className="choice-group" value={allBots ? 'all' : 'some'} onChange={(v) => onChange(v === 'all')}>
      <Label className="field__label">Bots</Label>
      <div className="choice-group__row">
        <Radio value="all" className="radio">
          All bots
        </Radio>
        <Radio value="some" className="radio" isDisabled={someDisabled}>
          {someLabel}
        </Radio>
      </div>
    </RadioGroup>
  );
}
