import { useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { useCreateBot } from '../../api/bots';
import { ApiError } from '../../api/errors';
import type { CreatedBot } from '../../api/types';
import { ActionButton } from '../../components/ActionButton';
import { SelectInput, TextInput } from '../../components/Fields';
import { ErrorMessage } from '../../components/Messages';

const TIERS = [
  { value: 'starter', label: 'Starter' },
  { value: 'growth', label: 'Growth' },
  { value: 'scale', label: 'Scale' },
] as const;
type Tier = (typeof TIERS)[number]['value'];

/** A free name the API suggested with its 409, if any. */
function suggestedName(error: unknown): string | null {
  return error instanceof ApiError && error.status === 409 && typeof error.details['suggested_name'] === 'string' ? error.details['suggested_name'] : null;
}

/** Free slots per enterprise tier from a 403 `tier_capacity_unavailable`, as words. */
function availableSlots(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.code !== 'tier_capacity_unavailable') return null;
  const slots = error.details['available_slots'];
  if (typeof slots !== 'object' || slots === null) return null;
  return TIERS.map((t) => `${t.label}: ${Number((slots as Record<string, unknown>)[t.value] ?? 0)}`).join(', ');
}

/**
 * Name, language and (enterprise workspaces) the tier → "Create bot". The API's rules apply as
 * they are: no free plan slot (402), no free slot in the tier (403), a name in use (409, with a
 * free name offered as "Use …").
 */
export function CreateBotForm({ workspaceId, enterprise, onCreated }: { workspaceId: string; enterprise: boolean; onCreated: (bot: CreatedBot) => void }) {
  const create = useCreateBot(workspaceId);
  const [name, setName] = useState('');
  const [language, setLanguage] = useState('');
  const [tier, setTier] = useState<Tier>('starter');
  const suggestion = suggestedName(create.error);
  const slots = availableSlots(create.error);
  const edited = (set: (v: string) => void) => (v: string) => {
    set(v);
    if (create.isError) create.reset();
  };

  return (
    <Form
      className="form form--wide"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate(
          { name, ...(language.trim() ? { language: language.trim() } : {}), ...(enterprise ? { enterprise_plan_tier: tier } : {}) },
          {
            onSuccess: (bot) => {
              setName('');
              setLanguage('');
              onCreated(bot);
            },
          },
        );
      }}
    >
      <ErrorMessage error={create.error} title="The bot was not created." />
      {slots ? <p className="muted">Free slots per tier: {slots}.</p> : null}
      {suggestion ? (
        <div className="form__actions">
          <Button className="button button--secondary button--small" onPress={() => edited(setName)(suggestion)}>
            Use “{suggestion}”
          </Button>
        </div>
      ) : null}
      <TextInput label="Name" name="name" isRequired maxLength={30} value={name} onChange={edited(setName)} description="1 to 30 characters, unique in the workspace. Visitors see it in the widget." />
      <TextInput
        label="Language"
        name="language"
        maxLength={35}
        value={language}
        onChange={edited(setLanguage)}
        placeholder="en"
        description="The bot's default reply language, a code such as en, fr or ja-JP. Empty: English."
      />
      {enterprise ? (
        <SelectInput
          label="Enterprise tier"
          id="bot-tier"
          value={tier}
          onChange={(v) => edited((x) => setTier(x as Tier))(v)}
          options={TIERS.map((t) => ({ value: t.value, label: t.label }))}
          description="The tier whose slot the bot takes."
        />
      ) : null}
      <div className="form__actions">
        <ActionButton type="submit" className="button button--primary" isPending={create.isPending}>
          Create bot
        </ActionButton>
      </div>
    </Form>
  );
}
