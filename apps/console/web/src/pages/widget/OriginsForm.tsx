import { useState } from 'react';
import { Form } from 'react-aria-components';
import { useUpdateWidget } from '../../api/widget';
import { ActionButton } from '../../components/ActionButton';
import { TextAreaInput } from '../../components/Fields';
import { ErrorMessage, SuccessMessage } from '../../components/Messages';
import { widgetFieldErrors } from './field-errors';

/** "Allowed origins", one per line; empty lets every website use the widget. */
export function OriginsForm({ workspaceId, botId, origins, canManage }: { workspaceId: string; botId: string; origins: string[]; canManage: boolean }) {
  const update = useUpdateWidget(workspaceId, botId);
  const [text, setText] = useState(origins.join('\n'));
  return (
    <Form
      className="form form--wide"
      validationErrors={widgetFieldErrors(update.error)}
      onSubmit={(e) => {
        e.preventDefault();
        const list = text
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean);
        update.mutate({ allowed_origins: list }, { onSuccess: (saved) => setText(saved.allowed_origins.join('\n')) });
      }}
    >
      <ErrorMessage error={update.error} title="The allowed origins were not saved." />
      <TextAreaInput
        label="Allowed origins"
        name="allowed_origins"
        markOptional={false}
        isReadOnly={!canManage}
        value={text}
        onChange={(v) => {
          setText(v);
          if (update.isSuccess || update.isError) update.reset();
        }}
        placeholder={'https://www.example.com\nhttps://shop.example.com'}
        description="One origin per line: scheme, host and port, such as https://www.example.com (no path). Empty: any website may use the widget. Browsers on other websites are refused."
      />
      {update.isSuccess ? <SuccessMessage>Allowed origins saved.</SuccessMessage> : null}
      {canManage ? (
        <div className="form__actions">
          <ActionButton type="submit" className="button button--primary" isPending={update.isPending}>
            Save origins
          </ActionButton>
        </div>
      ) : null}
    </Form>
  );
}
