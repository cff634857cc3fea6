import { useState } from 'react';
import { Button, Dialog, DialogTrigger, Form, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { useUpdateModelConnection } from '../../api/models';
import type { ModelConnection, UpdateModelConnection } from '../../api/types';
import { CheckboxField, TextInput } from '../../components/Fields';
import { ErrorMessage } from '../../components/Messages';
import { fieldErrors } from '../../lib/field-errors';
import { baseUrlExample, baseUrlHint, MODEL_API_KEY_MAX, MODEL_BASE_URL_MAX, MODEL_CONNECTION_NAME_MAX, MODEL_NAME_MAX, modelExample, providerLabel } from '../../lib/models';
import { FormDialogActions } from '../../components/Dialogs';

/** Only what changed goes to the API (the audit log lists the members sent). */
function changes(c: ModelConnection, name: string, baseUrl: string, model: string, newKey: string, removeKey: boolean): UpdateModelConnection {
  const body: UpdateModelConnection = {};
  if (name.trim() !== c.name) body.name = name.trim();
  const url = baseUrl.trim() === '' ? null : baseUrl.trim();
  if (url !== c.base_url) body.base_url = url;
  if (model.trim() !== c.model) body.model = model.trim();
  if (removeKey) body.api_key = null;
  else if (newKey !== '') body.api_key = newKey;
  return body;
}

/** "Edit": name, base URL, model, a new key (empty keeps the stored one) or "Remove key". */
export function EditModelConnectionDialog({ workspaceId, connection, describedBy }: { workspaceId: string; connection: ModelConnection; describedBy: string }) {
  const update = useUpdateModelConnection(workspaceId);
  const [name, setName] = useState(connection.name);
  const [baseUrl, setBaseUrl] = useState(connection.base_url ?? '');
  const [model, setModel] = useState(connection.model);
  const [newKey, setNewKey] = useState('');
  const [removeKey, setRemoveKey] = useState(false);

  return (
    <DialogTrigger
      onOpenChange={() => {
        // Opening or closing, the dialog starts over from the connection as saved: a typed key never outlives it.
        update.reset();
        setName(connection.name);
        setBaseUrl(connection.base_url ?? '');
        setModel(connection.model);
        setNewKey('');
        setRemoveKey(false);
      }}
    >
      <Button className="button button--secondary button--small" aria-describedby={describedBy}>
        Edit
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable={!update.isPending}>
        <Modal className="modal">
          <Dialog className="dialog">
            {({ close }) => (
              <Form
                className="form"
                validationErrors={fieldErrors(update.error, ([field]) => (field === 'api_key' ? 'new_key' : field))}
                onSubmit={(e) => {
                  e.preventDefault();
                  const body = changes(connection, name, baseUrl, model, newKey, removeKey);
                  if (Object.keys(body).length === 0) {
                    close();
                    return;
                  }
                  update.mutate({ connectionId: connection.id, body }, { onSuccess: () => close() });
                }}
              >
                <Heading slot="title" className="dialog__title">
                  Edit “{connection.name}”
                </Heading>
                <p className="muted">
                  {providerLabel(connection.kind)}. Bots using this connection answer through the change from their next message.
                </p>
                <ErrorMessage error={update.error} title="The connection was not saved." />
                <TextInput label="Name" name="name" isRequired maxLength={MODEL_CONNECTION_NAME_MAX} value={name} onChange={setName} />
                <TextInput
                  label="Base URL"
                  name="base_url"
                  type="url"
                  markOptional={false}
                  maxLength={MODEL_BASE_URL_MAX}
                  value={baseUrl}
                  onChange={setBaseUrl}
                  placeholder={baseUrlExample(connection.kind)}
                  description={baseUrlHint(connection.kind)}
                />
                <TextInput label="Model" name="model" isRequired maxLength={MODEL_NAME_MAX} value={model} onChange={setModel} placeholder={modelExample(connection.kind)} />
                <TextInput
                  label="New key"
                  name="new_key"
                  type="password"
                  autoComplete="off"
                  markOptional={false}
                  maxLength={MODEL_API_KEY_MAX}
                  value={newKey}
                  onChange={setNewKey}
                  isDisabled={removeKey}
                  description={
                    connection.has_key
                      ? 'Empty: keep the stored key. A new one replaces it; stored encrypted, never shown again.'
                      : 'No key is stored. Empty: still none. Stored encrypted; never shown again.'
                  }
                />
                {connection.has_key ? (
                  <CheckboxField isSelected={removeKey} onChange={setRemoveKey} name="remove_key">
                    Remove key
                  </CheckboxField>
                ) : null}
                <FormDialogActions onCancel={close} pending={update.isPending} submit="Save changes" />
              </Form>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}
