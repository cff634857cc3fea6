import { useState } from 'react';
import { CheckboxGroup, FieldError, Form, Label, Text } from 'react-aria-components';
import { useCreateToken } from '../../api/tokens';
import type { Bot, CreatedApiToken } from '../../api/types';
import { BotScopeChoice, CheckboxItem, SelectInput, TextInput } from '../../components/Fields';
import { ErrorMessage } from '../../components/Messages';
import { SCOPES, type Scope } from '../../lib/contracts';
import { BotChoice } from './BotChoice';
import { ActionButton } from '../../components/ActionButton';

const EXPIRY = [
  { value: '', label: 'Never' },
  { value: String(7 * 86400), label: 'In 7 days' },
  { value: String(30 * 86400), label: 'In 30 days' },
  { value: String(90 * 86400), label: 'In 90 days' },
  { value: String(365 * 86400), label: 'In 1 year' },
];

/** Name, scopes, all bots or chosen bots, optional expiry → "Create token". */
export function CreateTokenForm({ workspaceId, bots, botsError, onCreated }: { workspaceId: string; bots: Bot[]; botsError: unknown; onCreated: (t: CreatedApiToken) => void }) {
  const create = useCreateToken(workspaceId);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [allBots, setAllBots] = useState(true);
  const [botIds, setBotIds] = useState<string[]>([]);
  const [expiry, setExpiry] = useState('');

  return (
    <Form
      className="form form--wide"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate(
          {
            name: name.trim(),
            scopes: scopes as Scope[],
            bot_ids: allBots ? null : botIds,
            expires_in_seconds: expiry ? Number(expiry) : null,
          },
          {
            onSuccess: (token) => {
              setName('');
              setScopes([]);
              setAllBots(true);
              setBotIds([]);
              setExpiry('');
              onCreated(token);
            },
          },
        );
      }}
    >
      <ErrorMessage error={create.error} title="The token was not created." />
      <TextInput label="Name" name="name" isRequired maxLength={100} value={name} onChange={setName} description="What the token is for, e.g. “CRM sync”." />
      <CheckboxGroup className="choice-group" value={scopes} onChange={setScopes} isRequired name="scopes" validate={(v) => (v.length === 0 ? 'Choose at least one scope.' : null)}>
        <Label className="field__label">Scopes</Label>
        <Text slot="description" className="field__description">
          What the token may do. Grant only what it needs.
        </Text>
        <div className="choice-group__grid">
          {SCOPES.map((s) => (
            <CheckboxItem key={s} value={s}>
              {s}
            </CheckboxItem>
          ))}
        </div>
        <FieldError className="field__error" />
      </CheckboxGroup>
      <BotScopeChoice allBots={allBots} onChange={setAllBots} />
      {allBots ? null : <BotChoice bots={bots} error={botsError} value={botIds} onChange={setBotIds} />}
      <SelectInput label="Expires" id="token-expiry" value={expiry} onChange={setExpiry} options={EXPIRY} description="Optional. An expired token gets 401 like a revoked one." />
      <div className="form__actions">
        <ActionButton type="submit" className="button button--primary" isPending={create.isPending}>
          Create token
        </ActionButton>
      </div>
    </Form>
  );
}
