import { useState } from 'react';
import { Form } from 'react-aria-components';
import type { WidgetSettings } from '../../api/types';
import { useUpdateWidget } from '../../api/widget';
import { ActionButton } from '../../components/ActionButton';
import { SelectInput, TextInput } from '../../components/Fields';
import { ErrorMessage, SuccessMessage } from '../../components/Messages';
import { widgetFieldErrors } from './field-errors';

const POSITIONS = [
  { value: 'right', label: 'Bottom right' },
  { value: 'left', label: 'Bottom left' },
];

/** Colour, position, greeting and launcher text: the bot's defaults (a tag's data attributes override them). */
export function AppearanceForm({ workspaceId, botId, theme, canManage }: { workspaceId: string; botId: string; theme: WidgetSettings['theme']; canManage: boolean }) {
  const update = useUpdateWidget(workspaceId, botId);
  const [color, setColor] = useState(theme.color);
  const [position, setPosition] = useState<string>(theme.position);
  const [greeting, setGreeting] = useState(theme.greeting ?? '');
  const [launcher, setLauncher] = useState(theme.launcher_text ?? '');
  const edited = <T,>(set: (v: T) => void) => (v: T) => {
    set(v);
    if (update.isSuccess || update.isError) update.reset();
  };
  const swatch = /^#[0-9a-fA-F]{6}$/.test(color.trim()) ? color.trim() : theme.color;

  return (
    <Form
      className="form form--wide"
      validationErrors={widgetFieldErrors(update.error)}
      onSubmit={(e) => {
        e.preventDefault();
        update.mutate({
          theme: {
            color: color.trim(),
            position: position === 'left' ? 'left' : 'right',
            greeting: greeting.trim() === '' ? null : greeting,
            launcher_text: launcher.trim() === '' ? null : launcher,
          },
        });
      }}
    >
      <ErrorMessage error={update.error} title="The appearance was not saved." />
      <div className="swatch-row">
        <TextInput
          label="Colour"
          name="color"
          isRequired
          isReadOnly={!canManage}
          value={color}
          onChange={edited(setColor)}
          maxLength={7}
          placeholder="#1a5fcc"
          description="A hex colour such as #1a5fcc for the launcher and the header, with white text on it: choose a dark one."
        />
        <span className="swatch" aria-hidden="true" style={{ backgroundColor: swatch }} />
      </div>
      <SelectInput label="Position" id="widget-position" value={position} onChange={edited(setPosition)} options={POSITIONS} isDisabled={!canManage} />
      <TextInput
        label="Greeting"
        name="greeting"
        isReadOnly={!canManage}
        value={greeting}
        onChange={edited(setGreeting)}
        maxLength={300}
        description="The first message a visitor sees. Empty: the widget's own greeting in the visitor's language."
      />
      <TextInput
        label="Launcher text"
        name="launcher_text"
        isReadOnly={!canManage}
        value={launcher}
        onChange={edited(setLauncher)}
        maxLength={40}
        description="Text on the launcher button. Empty: the widget's own text in the visitor's language."
      />
      {update.isSuccess ? <SuccessMessage>Appearance saved.</SuccessMessage> : null}
      {canManage ? (
        <div className="form__actions">
          <ActionButton type="submit" className="button button--primary" isPending={update.isPending}>
            Save appearance
          </ActionButton>
        </div>
      ) : null}
    </Form>
  );
}
