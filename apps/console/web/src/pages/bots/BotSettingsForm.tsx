import { useState } from 'react';
import { Form } from 'react-aria-components';
import { useUpdateBot } from '../../api/bots';
import type { Bot } from '../../api/types';
import { ActionButton } from '../../components/ActionButton';
import { TextInput } from '../../components/Fields';
import { ErrorMessage, SuccessMessage } from '../../components/Messages';

/** Name and default reply language → "Save settings" (409 when another bot has the name). */
export function BotSettingsForm({ workspaceId, bot, canManage }: { workspaceId: string; bot: Bot; canManage: boolean }) {
  const update = useUpdateBot(workspaceId, bot.id);
  const [name, setName] = useState(bot.name);
  const [language, setLanguage] = useState(bot.language);
  const edited = (set: (v: string) => void) => (v: string) => {
    set(v);
    if (update.isSuccess || update.isError) update.reset();
  };

  return (
    <Form
      className="form form--wide"
      onSubmit={(e) => {
        e.preventDefault();
        update.mutate({ name, language: language.trim() });
      }}
    >
      <ErrorMessage error={update.error} title="The settings were not saved." />
      {update.isSuccess ? <SuccessMessage>Settings saved.</SuccessMessage> : null}
      <TextInput label="Name" name="name" isRequired isReadOnly={!canManage} maxLength={30} value={name} onChange={edited(setName)} />
      <TextInput
        label="Default reply language"
        name="language"
        isRequired
        isReadOnly={!canManage}
        maxLength={35}
        value={language}
        onChange={edited(setLanguage)}
        description="A code such as en, fr or ja-JP. The bot answers in it unless a visitor's message or the widget asks for another."
      />
      {canManage ? (
        <div className="form__actions">
          <ActionButton type="submit" className="button button--primary" isPending={update.isPending}>
            Save settings
          </ActionButton>
        </div>
      ) : null}
    </Form>
  );
}
