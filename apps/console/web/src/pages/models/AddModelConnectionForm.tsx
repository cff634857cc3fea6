import { useState } from 'react';
import { Form } from 'react-aria-components';
import { useCreateModelConnection } from '../../api/models';
import type { ModelKind } from '../../api/types';
import { ActionButton } from '../../components/ActionButton';
import { SelectInput, TextInput } from '../../components/Fields';
import { ErrorMessage, SuccessMessage } from '../../components/Messages';
import { fieldErrors } from '../../lib/field-errors';
import {
  asModelKind,
  baseUrlExample,
  baseUrlHint,
  MODEL_API_KEY_MAX,
  MODEL_BASE_URL_MAX,
  MODEL_CONNECTION_NAME_MAX,
  MODEL_NAME_MAX,
  MODEL_PROVIDERS,
  modelExample,
} from '../../lib/models';

const KEY_HINT: Record<ModelKind, string> = {
  openai: 'Stored encrypted; never shown again. Needed by the OpenAI API and most hosted services; empty for a local server that asks for none.',
  anthropic: 'Stored encrypted; never shown again. Anthropic needs one.',
  ollama: 'Stored encrypted; never shown again. Usually empty: Ollama asks for none unless a proxy in front of it does.',
};

/** Provider, name, base URL, model and key → "Add connection". The key field is cleared once added. */
export function AddModelConnectionForm({ workspaceId }: { workspaceId: string }) {
  const create = useCreateModelConnection(workspaceId);
  const [kind, setKind] = useState<ModelKind>('openai');
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [model, setModel] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [added, setAdded] = useState<string | null>(null);
  const edited =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      setAdded(null);
      if (create.isError) create.reset();
    };

  return (
    <Form
      className="form form--wide"
      aria-label="Add a connection"
      validationErrors={fieldErrors(create.error, ([field]) => field)}
      onSubmit={(e) => {
        e.preventDefault();
        const trimmedUrl = baseUrl.trim();
        create.mutate(
          { kind, name: name.trim(), model: model.trim(), ...(trimmedUrl ? { base_url: trimmedUrl } : {}), ...(apiKey ? { api_key: apiKey } : {}) },
          {
            onSuccess: (connection) => {
              setName('');
              setBaseUrl('');
              setModel('');
              setApiKey('');
              setAdded(connection.name);
            },
          },
        );
      }}
    >
      <ErrorMessage error={create.error} title="The connection was not added." />
      <SelectInput
        label="Provider"
        id="model-provider"
        value={kind}
        onChange={edited((v: string) => setKind(asModelKind(v)))}
        options={MODEL_PROVIDERS.map((p) => ({ value: p.kind, label: p.label }))}
        description="OpenAI-compatible covers OpenAI, Azure OpenAI, OpenRouter, Groq, vLLM and LM Studio."
      />
      <TextInput
        label="Name"
        name="name"
        isRequired
        maxLength={MODEL_CONNECTION_NAME_MAX}
        value={name}
        onChange={edited(setName)}
        description="Shown in the model pickers, e.g. “OpenAI mini”."
      />
      <TextInput
        label="Base URL"
        name="base_url"
        type="url"
        markOptional={false}
        maxLength={MODEL_BASE_URL_MAX}
        value={baseUrl}
        onChange={edited(setBaseUrl)}
        placeholder={baseUrlExample(kind)}
        description={baseUrlHint(kind)}
      />
      <TextInput
        label="Model"
        name="model"
        isRequired
        maxLength={MODEL_NAME_MAX}
        value={model}
        onChange={edited(setModel)}
        placeholder={modelExample(kind)}
        description="The provider's name of the model, for chat or for embeddings."
      />
      <TextInput
        label="API key"
        name="api_key"
        type="password"
        autoComplete="off"
        markOptional={false}
        maxLength={MODEL_API_KEY_MAX}
        value={apiKey}
        onChange={edited(setApiKey)}
        description={KEY_HINT[kind]}
      />
      {added !== null ? <SuccessMessage>Connection “{added}” added. Test it from the table.</SuccessMessage> : null}
      <div className="form__actions">
        <ActionButton type="submit" className="button button--primary" isPending={create.isPending}>
          Add connection
        </ActionButton>
      </div>
    </Form>
  );
}
