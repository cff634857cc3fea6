import { useId } from 'react';
import { Button } from 'react-aria-components';
import { newRowKey } from './parameters';

export interface HeaderRow {
  key: number;
  name: string;
  /** Empty for a stored header: its value is kept. */
  value: string;
  /** Saved before: the server holds its value, which is never shown. */
  stored: boolean;
}

export const emptyHeader = (): HeaderRow => ({ key: newRowKey(), name: '', value: '', stored: false });

function HeaderFields({ row, index, onChange, onRemove }: { row: HeaderRow; index: number; onChange: (row: HeaderRow) => void; onRemove: () => void }) {
  const id = useId();
  return (
    <fieldset className="action-row action-row--header">
      <legend className="visually-hidden">Header {index + 1}</legend>
      <div className="field">
        <label className="field__label" htmlFor={`${id}-name`}>
          Header name
        </label>
        <input
          id={`${id}-name`}
          className="field__input"
          required
          maxLength={100}
          spellCheck={false}
          autoComplete="off"
          placeholder="Authorization"
          value={row.name}
          onChange={(e) => onChange({ ...row, name: e.target.value })}
        />
      </div>
      <div className="field action-row__wide">
        <label className="field__label" htmlFor={`${id}-value`}>
          Header value
        </label>
        <input
          id={`${id}-value`}
          className="field__input"
          type="password"
          autoComplete="off"
          spellCheck={false}
          maxLength={4000}
          required={!row.stored}
          placeholder={row.stored ? 'Stored — leave empty to keep' : undefined}
          value={row.value}
          onChange={(e) => onChange({ ...row, value: e.target.value })}
        />
      </div>
      <div className="action-row__end">
        <Button className="button button--ghost button--small" onPress={onRemove}>
          Remove
        </Button>
      </div>
    </fieldset>
  );
}

/** "Headers": name and value rows; values are write-only (stored encrypted, never shown again). */
export function HeadersEditor({ rows, onRows }: { rows: HeaderRow[]; onRows: (rows: HeaderRow[]) => void }) {
  const headingId = useId();
  return (
    <div className="action-group" role="group" aria-labelledby={headingId}>
      <h4 id={headingId} className="action-group__title">
        Headers
      </h4>
      <p className="field__description">Sent with every call, e.g. an API key. Values are stored encrypted and never shown again.</p>
      {rows.map((row, i) => (
        <HeaderFields
          key={row.key}
          row={row}
          index={i}
          onChange={(next) => onRows(rows.map((r) => (r.key === row.key ? next : r)))}
          onRemove={() => onRows(rows.filter((r) => r.key !== row.key))}
        />
      ))}
      <div>
        <Button className="button button--secondary button--small" onPress={() => onRows([...rows, emptyHeader()])}>
          Add header
        </Button>
      </div>
    </div>
  );
}
