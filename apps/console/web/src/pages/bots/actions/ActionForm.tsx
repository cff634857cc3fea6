import { useEffect, useRef, useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { useCreateBotAction, useUpdateBotAction } from '../../../api/actions';
import type { ActionMethod, BotAction, CreateBotAction } from '../../../api/types';
import { ActionButton } from '../../../components/ActionButton';
import { CheckboxField, SelectInput, TextAreaInput, TextInput } from '../../../components/Fields';
import { ErrorMessage } from '../../../components/Messages';
import { fieldErrors } from '../../../lib/field-errors';
import { HeadersEditor, type HeaderRow } from './HeadersEditor';
import { ParametersEditor } from './ParametersEditor';
import { EMPTY_SCHEMA, newRowKey, parseSchema, rowsOf, schemaOf, stringParameters, type JsonSchema, type ParameterRow } from './parameters';

export const METHODS: ActionMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const NAME_MAX = 64;
const DESCRIPTION_MAX = 1000;
const URL_MAX = 2000;
const STATUS_TEXT_MAX = 80;
/** The "Visitor ID parameter" choice that stands for none. */
const NO_PARAM = '';

const asMethod = (v: string): ActionMethod => METHODS.find((m) => m === v) ?? 'GET';
/** The API's default: the visitor confirms every call but a GET. */
const confirmFor = (method: ActionMethod) => method !== 'GET';
/** The issues the API reports for these top-level members are shown next to their field. */
const FIELD_OF: Record<string, string> = { name: 'name', description: 'description', url: 'url', status_text: 'status_text' };

interface ActionFormProps {
  workspaceId: string;
  botId: string;
  /** The action to edit; none: a new one. */
  action?: BotAction;
  onSaved: (action: BotAction) => void;
  onCancel: () => void;
}

/** Name, description, status text, method, URL, parameters, headers and the flags → "Save action". */
export function ActionForm({ workspaceId, botId, action, onSaved, onCancel }: ActionFormProps) {
  const create = useCreateBotAction(workspaceId, botId);
  const update = useUpdateBotAction(workspaceId, botId);
  const save = action ? update : create;
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);

  const initialSchema: JsonSchema = (action?.parameters as JsonSchema | undefined) ?? EMPTY_SCHEMA;
  const initialRows = rowsOf(initialSchema);
  const [name, setName] = useState(action?.name ?? '');
  const [description, setDescription] = useState(action?.description ?? '');
  const [statusText, setStatusText] = useState(action?.status_text ?? '');
  const [method, setMethod] = useState<ActionMethod>(action?.method ?? 'GET');
  const [url, setUrl] = useState(action?.url ?? '');
  const [rows, setRows] = useState<ParameterRow[]>('rows' in initialRows ? initialRows.rows : []);
  // A schema the builder cannot show opens as JSON.
  const [jsonMode, setJsonMode] = useState(!('rows' in initialRows));
  const [jsonText, setJsonText] = useState(JSON.stringify(initialSchema, null, 2));
  const [builderNote, setBuilderNote] = useState<string | null>(null);
  const [headers, setHeaders] = useState<HeaderRow[]>(action?.headers.map((h) => ({ key: newRowKey(), name: h.name, value: '', stored: true })) ?? []);
  const [confirm, setConfirm] = useState(action?.confirm ?? confirmFor('GET'));
  // A new action's confirmation follows the method until the person sets it.
  const [confirmTouched, setConfirmTouched] = useState(action !== undefined);
  const [verifiedOnly, setVerifiedOnly] = useState(action?.verified_only ?? false);
  const [userIdParam, setUserIdParam] = useState(action?.user_id_param ?? NO_PARAM);
  const [enabled, setEnabled] = useState(action?.enabled ?? true);

  const parsed = jsonMode ? parseSchema(jsonText) : null;
  const jsonError = parsed && 'error' in parsed ? parsed.error : null;
  const schema: JsonSchema | null = parsed ? ('schema' in parsed ? parsed.schema : null) : schemaOf(rows.filter((r) => r.name.trim() !== ''));
  const stringParams = stringParameters(schema);
  const userIdChoice = stringParams.includes(userIdParam) ? userIdParam : NO_PARAM;

  const switchMode = (json: boolean) => {
    setBuilderNote(null);
    if (json) {
      setJsonText(JSON.stringify(schemaOf(rows.filter((r) => r.name.trim() !== '')), null, 2));
      setJsonMode(true);
      return;
    }
    if (jsonError) {
      setBuilderNote('Fix the JSON first: the builder can only show a valid schema.');
      return;
    }
    const shown = rowsOf(schema);
    if ('reason' in shown) {
      setBuilderNote(`The builder cannot show this schema (${shown.reason}). Keep editing it as JSON.`);
      return;
    }
    setRows(shown.rows);
    setJsonMode(false);
  };

  const body = (): CreateBotAction => ({
    name: name.trim(),
    description: description.trim(),
    // Empty: none (the widget shows a generic text).
    status_text: statusText.trim() || null,
    method,
    url: url.trim(),
    parameters: (schema ?? EMPTY_SCHEMA) as CreateBotAction['parameters'],
    headers: headers.map((h) => (h.stored && h.value === '' ? { name: h.name.trim() } : { name: h.name.trim(), value: h.value })) as CreateBotAction['headers'],
    confirm,
    verified_only: verifiedOnly,
    user_id_param: verifiedOnly && userIdChoice !== NO_PARAM ? userIdChoice : null,
    enabled,
  });

  return (
    <Form
      className="form form--wide action-form"
      aria-labelledby="action-form-title"
      validationErrors={fieldErrors(save.error, ([field]) => (field ? FIELD_OF[field] : null))}
      onSubmit={(e) => {
        e.preventDefault();
        if (jsonError) {
          document.querySelector<HTMLTextAreaElement>('.action-json')?.focus();
          return;
        }
        const options = { onSuccess: onSaved };
        if (action) update.mutate({ actionId: action.id, body: body() }, options);
        else create.mutate(body(), options);
      }}
    >
      <h3 id="action-form-title" ref={headingRef} tabIndex={-1} className="action-form__title">
        {action ? `Edit action “${action.name}”` : 'Add action'}
      </h3>
      <TextInput
        label="Name"
        name="name"
        isRequired
        maxLength={NAME_MAX}
        value={name}
        onChange={setName}
        description="The name the model sees: a letter, then letters, digits, _ or -, e.g. order_status."
      />
      <TextAreaInput
        label="Description"
        name="description"
        isRequired
        rows={3}
        maxLength={DESCRIPTION_MAX}
        value={description}
        onChange={setDescription}
        description={`For the model: what it does and when to use it. ${description.length} of ${DESCRIPTION_MAX} characters.`}
      />
      <TextInput
        label="Status text"
        name="status_text"
        maxLength={STATUS_TEXT_MAX}
        value={statusText}
        onChange={setStatusText}
        placeholder="Checking your order…"
        description={`Optional: what the visitor sees while it runs. Empty: a generic text. ${statusText.length} of ${STATUS_TEXT_MAX} characters.`}
      />
      <div className="form__row">
        <SelectInput
          label="Method"
          id="action-method"
          value={method}
          onChange={(v) => {
            const next = asMethod(v);
            setMethod(next);
            if (!confirmTouched) setConfirm(confirmFor(next));
          }}
          options={METHODS.map((m) => ({ value: m, label: m }))}
        />
        <div className="action-form__url">
          <TextInput
            label="URL"
            name="url"
            isRequired
            maxLength={URL_MAX}
            value={url}
            onChange={setUrl}
            placeholder="https://shop.example/api/orders/{order_id}"
            description="https only. {name} placeholders are filled from the parameters of that name."
          />
        </div>
      </div>
      <ParametersEditor
        rows={rows}
        onRows={setRows}
        jsonMode={jsonMode}
        onJsonMode={switchMode}
        jsonText={jsonText}
        onJsonText={(t) => {
          setJsonText(t);
          setBuilderNote(null);
        }}
        jsonError={jsonError}
        builderNote={builderNote}
      />
      <HeadersEditor rows={headers} onRows={setHeaders} />
      <div className="action-group" role="group" aria-label="Safety">
        <CheckboxField
          isSelected={confirm}
          onChange={(v) => {
            setConfirm(v);
            setConfirmTouched(true);
          }}
        >
          Needs the visitor's confirmation
        </CheckboxField>
        <CheckboxField isSelected={verifiedOnly} onChange={setVerifiedOnly}>
          Verified visitors only
        </CheckboxField>
        <SelectInput
          label="Visitor ID parameter"
          id="action-user-id-param"
          value={userIdChoice}
          onChange={setUserIdParam}
          isDisabled={!verifiedOnly}
          options={[{ value: NO_PARAM, label: 'None' }, ...stringParams.map((p) => ({ value: p, label: p }))]}
          description="A string parameter the service fills with the verified visitor's ID (from identify), never the model. Needs “Verified visitors only”."
        />
        <CheckboxField isSelected={enabled} onChange={setEnabled}>
          Enabled
        </CheckboxField>
      </div>
      <ErrorMessage error={save.error} title="The action was not saved." />
      <div className="form__actions">
        <ActionButton type="submit" className="button button--primary" isPending={save.isPending}>
          Save action
        </ActionButton>
        <Button className="button button--secondary" onPress={onCancel} isDisabled={save.isPending}>
          Cancel
        </Button>
      </div>
    </Form>
  );
}
