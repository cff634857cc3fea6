import { useId } from 'react';
import { Button, FieldError, Label, Text, TextArea, TextField } from 'react-aria-components';
import { CheckboxField } from '../../../components/Fields';
import { emptyParameter, PARAMETER_TYPES, type ParameterRow, type ParameterType } from './parameters';

function ParameterFields({ row, index, onChange, onRemove }: { row: ParameterRow; index: number; onChange: (row: ParameterRow) => void; onRemove: () => void }) {
  const id = useId();
  return (
    <fieldset className="action-row action-row--parameter">
      <legend className="visually-hidden">Parameter {index + 1}</legend>
      <div className="field">
        <label className="field__label" htmlFor={`${id}-name`}>
          Parameter name
        </label>
        <input
          id={`${id}-name`}
          className="field__input"
          required
          maxLength={64}
          spellCheck={false}
          autoComplete="off"
          value={row.name}
          onChange={(e) => onChange({ ...row, name: e.target.value })}
        />
      </div>
      <div className="field">
        <label className="field__label" htmlFor={`${id}-type`}>
          Type
        </label>
        <select id={`${id}-type`} className="field__select" value={row.type} onChange={(e) => onChange({ ...row, type: e.target.value as ParameterType })}>
          {PARAMETER_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </div>
      <div className="field action-row__wide">
        <label className="field__label" htmlFor={`${id}-description`}>
          Parameter description <span className="field__optional">(optional)</span>
        </label>
        <input id={`${id}-description`} className="field__input" value={row.description} onChange={(e) => onChange({ ...row, description: e.target.value })} />
      </div>
      <div className="action-row__end">
        <CheckboxField isSelected={row.required} onChange={(required) => onChange({ ...row, required })}>
          Required
        </CheckboxField>
        <Button className="button button--ghost button--small" onPress={onRemove}>
          Remove
        </Button>
      </div>
    </fieldset>
  );
}

interface ParametersEditorProps {
  rows: ParameterRow[];
  onRows: (rows: ParameterRow[]) => void;
  jsonMode: boolean;
  /** Asks to switch; the form refuses to leave JSON for a schema the builder cannot show. */
  onJsonMode: (json: boolean) => void;
  jsonText: string;
  onJsonText: (text: string) => void;
  /** Invalid JSON (blocks saving), or why the builder cannot show the schema. */
  jsonError: string | null;
  builderNote: string | null;
}

/** "Parameters": rows of name, type, description and "Required" that build the JSON Schema, or the schema itself as JSON. */
export function ParametersEditor({ rows, onRows, jsonMode, onJsonMode, jsonText, onJsonText, jsonError, builderNote }: ParametersEditorProps) {
  const headingId = useId();
  return (
    <div className="action-group" role="group" aria-labelledby={headingId}>
      <div className="action-group__head">
        <h4 id={headingId} className="action-group__title">
          Parameters
        </h4>
        <CheckboxField isSelected={jsonMode} onChange={onJsonMode}>
          Edit as JSON
        </CheckboxField>
      </div>
      <p className="field__description">What the model fills in when it calls the action. A URL placeholder such as {'{order_id}'} must be one of them.</p>
      {builderNote ? (
        <p className="field__error" role="alert">
          {builderNote}
        </p>
      ) : null}
      {jsonMode ? (
        <TextField className="field" name="parameters" value={jsonText} onChange={onJsonText} isInvalid={jsonError !== null}>
          <Label className="field__label">Parameters (JSON Schema)</Label>
          <TextArea className="field__input field__textarea action-json" rows={12} spellCheck={false} />
          <Text slot="description" className="field__description">
            {'A JSON Schema object: {"type": "object", "properties": {…}, "required": […]}.'}
          </Text>
          <FieldError className="field__error">{jsonError}</FieldError>
        </TextField>
      ) : (
        <>
          {rows.length === 0 ? <p className="empty">No parameters: the action is called without input.</p> : null}
          {rows.map((row, i) => (
            <ParameterFields
              key={row.key}
              row={row}
              index={i}
              onChange={(next) => onRows(rows.map((r) => (r.key === row.key ? next : r)))}
              onRemove={() => onRows(rows.filter((r) => r.key !== row.key))}
            />
          ))}
          <div>
            <Button className="button button--secondary button--small" onPress={() => onRows([...rows, emptyParameter()])}>
              Add parameter
            </Button>
          </div>
        </>
      )}
    </div>
  );
}
