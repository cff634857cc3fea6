import { useState } from 'react';
import { Button, Dialog, DialogTrigger, Form, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { type ChannelConnection, type ChannelKind, type UpdateChannelConnection, useCreateChannelConnection, useUpdateChannelConnection } from '../../../api/channels';
import { FormDialogActions } from '../../../components/Dialogs';
import { CheckboxField, SelectInput, TextInput } from '../../../components/Fields';
import { ErrorMessage } from '../../../components/Messages';
import { CHANNEL_KIND_OPTIONS, channelFields, channelKindName, filled } from './channel-fields';
import { ChannelFieldInputs } from './ChannelFieldInputs';

const NAME_MAX = 80;

const isKind = (v: string): v is ChannelKind => CHANNEL_KIND_OPTIONS.some((k) => k.value === v);

/**
 * "Add channel": the kind, a name, then the kind's settings and credentials. The credentials are
 * sent once and dropped from the form's state as soon as the connection is saved.
 */
export function AddChannelDialog({ workspaceId, botId }: { workspaceId: string; botId: string }) {
  const create = useCreateChannelConnection(workspaceId, botId);
  const [kind, setKind] = useState<ChannelKind>('email');
  const [name, setName] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const fields = channelFields(kind);
  return (
    <DialogTrigger
      onOpenChange={(open) => {
        if (open) {
          create.reset();
          setKind('email');
          setName('');
        }
        // Closed or opened: no credential stays in memory.
        setValues({});
      }}
    >
      <Button className="button button--primary">Add channel</Button>
      <ModalOverlay className="modal-overlay" isDismissable={!create.isPending}>
        <Modal className="modal modal--wide">
          <Dialog className="dialog">
            {({ close }) => (
              <Form
                className="form form--inline"
                onSubmit={(e) => {
                  e.preventDefault();
                  const settings = filled(values, fields.settings);
                  create.mutate(
                    { kind, ...(name.trim() ? { name: name.trim() } : {}), ...(fields.settings.length ? { settings } : {}), secrets: filled(values, fields.secrets) },
                    {
                      onSuccess: () => {
                        setValues({});
                        close();
                      },
                    },
                  );
                }}
              >
                <Heading slot="title" className="dialog__title">
                  Add channel
                </Heading>
                <p>The bot answers the messages of this account. Its conversations and leads show the channel.</p>
                <SelectInput
                  label="Kind"
                  id="channel-kind"
                  value={kind}
                  onChange={(v) => {
                    if (!isKind(v)) return;
                    setKind(v);
                    setValues({});
                  }}
                  options={CHANNEL_KIND_OPTIONS}
                />
                <TextInput label="Name" name="name" maxLength={NAME_MAX} value={name} onChange={setName} description={`For people, e.g. "Support inbox". Empty: ${channelKindName(kind)}.`} />
                <ChannelFieldInputs fields={[...fields.settings, ...fields.secrets]} values={values} onChange={(n, v) => setValues((old) => ({ ...old, [n]: v }))} />
                <ErrorMessage error={create.error} title="The channel was not added." />
                <FormDialogActions onCancel={close} pending={create.isPending} submit="Add channel" />
              </Form>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}

/** Only what the form changed: the settings as a whole set, credentials only when typed. */
function changesOf(connection: ChannelConnection, form: { name: string; enabled: boolean; values: Record<string, string> }): UpdateChannelConnection {
  const fields = channelFields(connection.kind);
  const settings = filled(form.values, fields.settings);
  const secrets = filled(form.values, fields.secrets);
  const sameSettings = JSON.stringify(Object.entries(settings).sort()) === JSON.stringify(Object.entries(connection.settings).sort());
  return {
    ...(form.name.trim() !== connection.name ? { name: form.name.trim() } : {}),
    ...(form.enabled !== connection.enabled ? { enabled: form.enabled } : {}),
    ...(sameSettings ? {} : { settings }),
    ...(Object.keys(secrets).length ? { secrets } : {}),
  };
}

/** "Edit": the name, on or off, the settings, and any credential to replace (empty: kept). */
export function EditChannelDialog({ workspaceId, botId, connection, describedBy }: { workspaceId: string; botId: string; connection: ChannelConnection; describedBy: string }) {
  const update = useUpdateChannelConnection(workspaceId, botId);
  const [name, setName] = useState(connection.name);
  const [enabled, setEnabled] = useState(connection.enabled);
  const [values, setValues] = useState<Record<string, string>>({});
  const fields = channelFields(connection.kind);
  return (
    <DialogTrigger
      onOpenChange={(open) => {
        if (open) {
          update.reset();
          setName(connection.name);
          setEnabled(connection.enabled);
          setValues({ ...connection.settings });
        } else setValues({});
      }}
    >
      <Button className="button button--secondary button--small" aria-describedby={describedBy}>
        Edit
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable={!update.isPending}>
        <Modal className="modal modal--wide">
          <Dialog className="dialog">
            {({ close }) => (
              <Form
                className="form form--inline"
                onSubmit={(e) => {
                  e.preventDefault();
                  const body = changesOf(connection, { name, enabled, values });
                  if (Object.keys(body).length === 0) return close();
                  update.mutate(
                    { connectionId: connection.id, body },
                    {
                      onSuccess: () => {
                        setValues({});
                        close();
                      },
                    },
                  );
                }}
              >
                <Heading slot="title" className="dialog__title">
                  Edit the channel “{connection.name}”
                </Heading>
                <TextInput label="Name" name="name" isRequired maxLength={NAME_MAX} value={name} onChange={setName} />
                <div className="field">
                  <CheckboxField name="enabled" isSelected={enabled} onChange={setEnabled}>
                    Enabled
                  </CheckboxField>
                  <p className="field__description">Off: the provider's messages are refused and the mailbox is not read.</p>
                </div>
                <ChannelFieldInputs
                  fields={[...fields.settings, ...fields.secrets]}
                  values={values}
                  stored={connection.secrets_set}
                  onChange={(n, v) => setValues((old) => ({ ...old, [n]: v }))}
                />
                <ErrorMessage error={update.error} title="The change was not saved." />
                <FormDialogActions onCancel={close} pending={update.isPending} submit="Save" />
              </Form>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}
