import { useState } from 'react';
import { CheckboxGroup, FieldError, Form, Label, Text } from 'react-aria-components';
import { useCreateWebhook } from '../../api/webhooks';
import type { Bot, CreatedWebhook } from '../../api/types';
import { BotScopeChoice, CheckboxItem, SelectInput, TextInput } from '../../components/Fields';
import { ErrorMessage } from '../../components/Messages';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../lib/contracts';
import { ActionButton } from '../../components/ActionButton';

/** Name, "Endpoint URL", events, all bots or one bot → "Add webhook". */
export function AddWebhookForm({ workspaceId, bots, botsError, onCreated }: { workspaceId: string; bots: Bot[]; botsError: unknown; onCreated: (w: CreatedWebhook) => void }) {
  const create = useCreateWebhook(workspaceId);
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [allBots, setAllBots] = useState(true);
  const [botId, setBotId] = useState('');
  const chosenBot = botId || bots[0]?.id || '';

  return (
    <Form
      className="form form--wide"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate(
          { name: name.trim(), url: url.trim(), events: events as WebhookEventType[], bot_id: allBots ? null : chosenBot || null },
          {
            onSuccess: (webhook) => {
              setName('');
              setUrl('');
              setEvents([]);
              setAllBots(true);
              setBotId('');
              onCreated(webhook);
            },
          },
        );
      }}
    >
      <ErrorMessage error={create.error} title="The webhook was not added." />
      <TextInput label="Name" name="name" isRequired maxLength={100} value={name} onChange={setName} description="What the webhook is for, e.g. “Bookings to CRM”." />
      <TextInput label="Endpoint URL" name="url" type="url" isRequired maxLength={2048} value={url} onChange={setUrl} placeholder="https://example.com/hooks/support-agent" description="A public HTTPS address." />
      <CheckboxGroup className="choice-group" value={events} onChange={setEvents} isRequired name="events" validate={(v) => (v.length === 0 ? 'Choose at least one event.' : null)}>
        <Label className="field__label">Events</Label>
        <Text slot="description" className="field__description">
          The events delivered to this endpoint.
        </Text>
        <div className="choice-group__grid">
          {WEBHOOK_EVENT_TYPES.map((t) => (
            <CheckboxItem key={t} value={t}>
              {t}
            </CheckboxItem>
          ))}
        </div>
        <FieldError className="field__error" />
      </CheckboxGroup>
      <BotScopeChoice allBots={allBots} onChange={setAllBots} someLabel="One bot" someDisabled={bots.length === 0} />
      {allBots ? null : botsError ? (
        <ErrorMessage error={botsError} title="The bots could not be loaded." />
      ) : (
        <SelectInput label="Which bot" id="webhook-bot" value={chosenBot} onChange={setBotId} options={bots.map((b) => ({ value: b.id, label: b.name }))} />
      )}
      <div className="form__actions">
        <ActionButton type="submit" className="button button--primary" isPending={create.isPending}>
          Add webhook
        </ActionButton>
      </div>
    </Form>
  );
}
