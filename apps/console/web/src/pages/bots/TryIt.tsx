import { useEffect, useRef, useState } from 'react';
import { Form } from 'react-aria-components';
import { ApiError } from '../../api/errors';
import { type PlaygroundAction, type TurnDiagnostics, playgroundTurn } from '../../api/playground';
import type { PlaygroundBehaviour } from '../../api/types';
import { ActionButton } from '../../components/ActionButton';
import { TextAreaInput } from '../../components/Fields';
import { ErrorMessage } from '../../components/Messages';
import { PassageList } from '../conversations/Transcript';

const MESSAGE_MAX = 2000;
const HISTORY_MAX = 20;

interface PlaygroundMessage {
  id: number;
  role: 'user' | 'assistant';
  text: string;
  diagnostics?: TurnDiagnostics;
  failed?: string;
  /** The actions the bot called for this answer, each in its latest state. */
  actions?: PlaygroundAction[];
}

const ACTION_STATE: Record<PlaygroundAction['state'], string> = {
  running: 'running…',
  done: 'done',
  failed: 'failed',
  refused: 'refused',
  awaiting_confirmation: 'waits for the visitor to confirm (a visitor gets Confirm and Cancel; Try it stops here)',
  cancelled: 'cancelled',
};

/** The actions of a playground answer: name and what became of each call. */
function ActionList({ actions }: { actions: PlaygroundAction[] }) {
  return (
    <ul className="playground__actions small" aria-label="Actions called">
      {actions.map((a) => (
        <li key={a.call_id}>
          Action <code>{a.name}</code>: {ACTION_STATE[a.state]}
        </li>
      ))}
    </ul>
  );
}

/** The numbers under a playground reply: language, unanswered, model, tokens and time. */
function Diagnostics({ d }: { d: TurnDiagnostics }) {
  const detected = d.detected_language && d.detected_language !== d.language ? ` (the message looked like ${d.detected_language})` : '';
  return (
    <details className="transcript__why">
      <summary>Why this answer</summary>
      <dl className="playground__facts small">
        <dt>Reply language</dt>
        <dd>
          {d.language}
          {detected}
        </dd>
        <dt>Unanswered</dt>
        <dd>{d.unanswered ? 'Yes: the knowledge had nothing for it' : 'No'}</dd>
        <dt>Model</dt>
        <dd>{d.model}</dd>
        <dt>Tokens</dt>
        <dd>{d.tokens ? `${d.tokens.prompt} in, ${d.tokens.completion} out` : 'Not reported'}</dd>
        <dt>Time</dt>
        <dd>
          {d.timings.retrieval_ms} ms to find passages
          {d.timings.first_text_ms !== null ? `, ${d.timings.first_text_ms} ms to the first words` : ''}, {d.timings.total_ms} ms in all
        </dd>
      </dl>
      {d.passages.length > 0 ? <PassageList passages={d.passages} /> : <p className="muted small transcript__passages-none">No passages found.</p>}
    </details>
  );
}

/**
 * The playground (issue 32, "Try it"): chat with the bot as a visitor would, streamed, with the
 * behaviour as it is in the form above (saved or not). Nothing is stored or counted; the page
 * keeps the conversation (the last 20 messages go back with each question) until "Start over".
 */
export function TryIt({ workspaceId, botId, behaviour }: { workspaceId: string; botId: string; behaviour?: PlaygroundBehaviour }) {
  const [messages, setMessages] = useState<PlaygroundMessage[]>([]);
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const next = useRef(1);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);

  const send = async () => {
    const message = draft.trim();
    if (!message || busy) return;
    const history = messages
      .filter((m) => !m.failed && m.text)
      .slice(-HISTORY_MAX)
      .map((m) => ({ role: m.role, content: m.text }));
    const question: PlaygroundMessage = { id: next.current++, role: 'user', text: message };
    const answerId = next.current++;
    setMessages((ms) => [...ms, question, { id: answerId, role: 'assistant', text: '' }]);
    setDraft('');
    setError(null);
    setBusy(true);
    const controller = new AbortController();
    abort.current = controller;
    const patch = (change: (m: PlaygroundMessage) => PlaygroundMessage) => setMessages((ms) => ms.map((m) => (m.id === answerId ? change(m) : m)));
    try {
      const diagnostics = await playgroundTurn(
        workspaceId,
        botId,
        { message, history, behaviour },
        (text) => patch((m) => ({ ...m, text: m.text + text })),
        controller.signal,
        (action) => patch((m) => ({ ...m, actions: [...(m.actions ?? []).filter((a) => a.call_id !== action.call_id), action] })),
      );
      patch((m) => ({ ...m, diagnostics }));
    } catch (err) {
      if (controller.signal.aborted) return;
      // Refused before it started: the question is taken back and the reason shown.
      if (err instanceof ApiError) {
        setMessages((ms) => ms.filter((m) => m.id !== answerId && m.id !== question.id));
        setDraft(message);
        setError(err);
      } else patch((m) => ({ ...m, failed: err instanceof Error ? err.message : 'The answer broke off.' }));
    } finally {
      if (abort.current === controller) abort.current = null;
      setBusy(false);
    }
  };

  return (
    <div className="playground">
      <p className="field__description">
        Chat with the bot as a visitor would. Answers use the behaviour as it is in the form above, saved or not. Nothing here is stored or counted: not in
        conversations, analytics, leads, the message quota or webhooks.
      </p>
      {messages.length > 0 ? (
        <ol className="transcript" aria-label="Playground conversation" aria-live="polite" aria-busy={busy}>
          {messages.map((m) => (
            <li key={m.id} className={`transcript__message transcript__message--${m.role}`}>
              <div className="transcript__meta">
                <span className="transcript__who">{m.role === 'user' ? 'You' : 'Bot'}</span>
              </div>
              <p className="transcript__text">{m.text || (m.role === 'assistant' && !m.failed ? '…' : '')}</p>
              {m.actions?.length ? <ActionList actions={m.actions} /> : null}
              {m.failed ? <p className="field__error">{m.failed}</p> : null}
              {m.diagnostics ? <Diagnostics d={m.diagnostics} /> : null}
            </li>
          ))}
        </ol>
      ) : null}
      <ErrorMessage error={error} title="The bot could not be tried." />
      <Form
        className="form form--wide"
        aria-label="Try it"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <TextAreaInput
          label="Message"
          name="message"
          rows={2}
          markOptional={false}
          maxLength={MESSAGE_MAX}
          value={draft}
          onChange={setDraft}
          onKeyDown={(e) => {
            // Enter sends, Shift+Enter starts a new line (as in the widget).
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault();
              void send();
            }
          }}
        />
        <div className="form__actions">
          <ActionButton type="submit" className="button button--primary" isPending={busy} isDisabled={!draft.trim()}>
            Send
          </ActionButton>
          <ActionButton
            className="button"
            isDisabled={messages.length === 0 && !busy}
            onPress={() => {
              abort.current?.abort();
              setMessages([]);
              setError(null);
            }}
          >
            Start over
          </ActionButton>
        </div>
      </Form>
    </div>
  );
}
