import type { Ref } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { WidgetApi } from './api';
import { WidgetApiError, errorKey } from './errors';
import { Form, filled } from './form';
import { linkText, sourceLinks } from './safe';
import type { SessionStore } from './session';
import type { ActionUpdate } from './sse';
import type { StoredAction, StoredMessage } from './storage';
import { type Texts, fill } from './texts';

interface ChatProps {
  t: Texts;
  api: WidgetApi;
  store: SessionStore;
  messages: StoredMessage[];
  language: string;
  greeting: string;
  /** The bot's starter questions: buttons until the first message. */
  starters: string[];
  uid: string;
  blocked: boolean;
}

/** A decision on the card of a waiting action (issue 34): sent with the button's text as the message. */
interface Decision {
  callId: string;
  confirm: boolean;
}

/** The card that waits for the visitor, if any: the last answer's, undecided. */
function waitingAction(messages: StoredMessage[]): StoredAction | undefined {
  const last = [...messages].reverse().find((m) => m.role === 'assistant' && m.author === undefined);
  return last?.action && !last.action.decided ? last.action : undefined;
}

/** Sets what became of the card of `callId`. */
const decide = (messages: StoredMessage[], callId: string, decided: StoredAction['decided']): StoredMessage[] =>
  messages.map((m) => (m.action?.callId === callId && !m.action.decided ? { ...m, action: { ...m.action, decided } } : m));

/** An input value as the card shows it: text as it is, anything else as JSON, never markup. */
function valueText(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

interface ActionCardProps {
  t: Texts;
  action: StoredAction;
  id: string;
  /** A decision is on its way: the buttons do nothing. */
  busy: boolean;
  cardRef?: Ref<HTMLDivElement>;
  onDecide(confirm: boolean): void;
}

/**
 * The confirm/cancel card of an action that waits for the visitor (issue 34): its label and the
 * input the call will send as a key/value list (text only), Confirm and Cancel. Once decided it
 * is a small note. Escape closes the panel as everywhere, and never decides: only a button does.
 */
function ActionCard({ t, action, id, busy, cardRef, onDecide }: ActionCardProps) {
  if (action.decided) {
    return <p class="note action-note">{action.decided === 'confirmed' ? t.action_confirmed : action.decided === 'cancelled' ? t.action_cancelled : t.action_gone}</p>;
  }
  const entries = Object.entries(action.input).slice(0, 20);
  return (
    <div class="confirm" role="group" aria-labelledby={`${id}-title ${id}-label`} tabIndex={-1} ref={cardRef}>
      <p class="confirm-title" id={`${id}-title`}>
        {t.action_confirm_title}
      </p>
      <p class="confirm-label" id={`${id}-label`}>
        {action.label}
      </p>
      {entries.length ? (
        <dl class="confirm-input">
          {entries.map(([key, value]) => (
            <div key={key}>
              <dt>{key}</dt>
              <dd>{valueText(value)}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      <div class="confirm-actions">
        <button type="button" class="primary" aria-disabled={busy ? 'true' : undefined} onClick={() => !busy && onDecide(true)}>
          {t.action_confirm}
        </button>
        <button type="button" class="secondary" aria-disabled={busy ? 'true' : undefined} onClick={() => !busy && onDecide(false)}>
          {t.cancel}
        </button>
      </div>
    </div>
  );
}

/** The conversation: transcript (a polite live region), answer actions, the message box, the lead form. */
export function ChatTab({ t, api, store, messages, language, greeting, starters, uid, blocked }: ChatProps) {
  const [draft, setDraft] = useState('');
  // Kept by the store: switching tabs during an answer must not allow a second one.
  const [streaming, setStreamingState] = useState(store.streaming);
  useEffect(() => store.subscribe(() => setStreamingState(store.streaming)), [store]);
  const setStreaming = (value: boolean) => store.setStreaming(value);
  const [error, setError] = useState<string | null>(null);
  const [contact, setContact] = useState(false);
  const [thanked, setThanked] = useState<string | null>(null);
  const logRef = useRef<HTMLDivElement>(null);
  // Issue 34: the action running now (the status line), the card whose decision is on its way,
  // and focus for the card when an answer ends waiting on it (then for the message box).
  const [status, setStatus] = useState<{ callId: string; label: string } | null>(null);
  const [deciding, setDeciding] = useState<string | null>(null);
  const cardRef = useRef<HTMLDivElement>(null);
  const messageRef = useRef<HTMLTextAreaElement>(null);
  const [focus, setFocus] = useState<'card' | 'message' | null>(null);
  useEffect(() => {
    if (focus === 'card' && cardRef.current) cardRef.current.focus();
    if (focus === 'message' && messageRef.current) messageRef.current.focus();
    if (focus) setFocus(null);
  }, [focus, messages]);

  useEffect(() => {
    const log = logRef.current;
    if (log) log.scrollTop = log.scrollHeight;
  }, [messages, streaming]);

  const note = (text: string) => store.setMessages((m) => [...m, { role: 'note', text }]);

  // While a person was asked for or holds the conversation: their replies arrive by long poll.
  const [watching, setWatching] = useState(store.watching);
  useEffect(() => store.subscribe(() => setWatching(store.watching)), [store]);
  // A reloaded page whose conversation went to a person listens again (the poll stops at once if it was handed back).
  useEffect(() => {
    if (store.messages.some((m) => m.author !== undefined || (m.role === 'note' && m.text === t.handoff_done))) store.setWatching(true);
  }, [store, t]);
  useEffect(() => {
    if (!watching || !store.sessionId) return;
    const sessionId = store.sessionId;
    const stop = new AbortController();
    void (async () => {
      let failures = 0;
      while (!stop.signal.aborted && store.watching && store.sessionId === sessionId) {
        try {
          const r = await api.replies(sessionId, store.repliesCursor, stop.signal);
          failures = 0;
          store.repliesCursor = r.cursor;
          const fresh = r.replies.filter((x) => !store.messages.some((m) => m.id === x.id));
          if (fresh.length) store.setMessages((m) => [...m, ...fresh.map((x): StoredMessage => ({ role: 'assistant', text: x.content, id: x.id, author: x.author_label ?? '' }))]);
          if (r.state === 'taken' && r.taken_by_label !== null && r.taken_by_label !== store.heldBy) {
            store.heldBy = r.taken_by_label;
            note(fill(t.handoff_taken, { name: r.taken_by_label }));
          }
          if (r.state === 'released' || r.state === 'none') {
            if (store.heldBy !== null) note(t.handoff_released);
            store.heldBy = null;
            store.setWatching(false);
          }
        } catch {
          if (stop.signal.aborted) return;
          // Refused or offline: try again later, less and less often; give up after a while.
          if (++failures > 5) return store.setWatching(false);
          await new Promise((r) => setTimeout(r, 2000 * failures));
        }
      }
    })();
    return () => stop.abort();
  }, [watching, store, api]);

  const send = (e: Event) => {
    e.preventDefault();
    void ask(draft.trim(), true);
  };

  /**
   * Sends a visitor's message: what they typed (the draft is then cleared), a starter question, or
   * the text of a card's button with the decision on its action (no bubble of theirs: the card
   * turns into "Confirmed"/"Cancelled" once the answer begins).
   */
  const ask = async (message: string, typed: boolean, decision?: Decision) => {
    if (!message || store.streaming) return;
    if (blocked) {
      setError(t.error_origin);
      return;
    }
    if (typed) setDraft('');
    setError(null);
    setStreaming(true);
    // A message that does not decide on a waiting card replaces it: the server cancels that call.
    const waiting = decision ? undefined : waitingAction(store.messages);
    if (decision) setDeciding(decision.callId);
    else store.setMessages((m) => [...m, { role: 'user', text: message }, { role: 'assistant', text: '' }]);
    let opened = false;
    const onOpen = () => {
      opened = true;
      if (decision) {
        store.setMessages((m) => [...decide(m, decision.callId, decision.confirm ? 'confirmed' : 'cancelled'), { role: 'assistant', text: '' }]);
        setFocus('message');
      } else if (waiting) store.setMessages((m) => decide(m, waiting.callId, 'cancelled'));
    };
    const onAction = (a: ActionUpdate) => {
      if (a.state === 'running') setStatus({ callId: a.callId, label: a.label });
      else setStatus((s) => (s?.callId === a.callId ? null : s));
    };
    const grow = (piece: string) =>
      store.setMessages((m) => {
        const last = m[m.length - 1];
        return last?.role === 'assistant' ? [...m.slice(0, -1), { ...last, text: last.text + piece }] : m;
      });
    const finish = (patch: Partial<StoredMessage>) =>
      store.setMessages((m) => {
        const last = m[m.length - 1];
        return last?.role === 'assistant' ? [...m.slice(0, -1), { ...last, ...patch }] : m;
      });
    try {
      const result = await store.with((sessionId) =>
        api.chat({ message, sessionId, language, ...(decision ? { action_confirmation: { call_id: decision.callId, confirm: decision.confirm } } : {}) }, { onText: grow, onAction, onOpen }),
      );
      if (result.sessionId) store.setSessionId(result.sessionId);
      if (result.heldBy !== undefined) {
        // A person holds the conversation: no answer from the bot; their reply comes by the poll.
        store.setMessages((m) => (m[m.length - 1]?.role === 'assistant' && !m[m.length - 1]!.text ? m.slice(0, -1) : m));
        if (store.heldBy !== result.heldBy) {
          store.heldBy = result.heldBy;
          note(fill(t.handoff_taken, { name: result.heldBy }));
        }
        store.setWatching(true);
      } else if (result.awaiting) {
        const { callId, label, input } = result.awaiting;
        finish({ id: result.messageId, sources: result.sources, action: { callId, label, input: input ?? {} } });
        setFocus('card');
      } else finish({ id: result.messageId, sources: result.sources });
    } catch (err) {
      if (decision && !opened) {
        // Nothing began: the card stays. 409: the call no longer waits (decided elsewhere, or replaced).
        if (err instanceof WidgetApiError && err.status === 409) {
          store.setMessages((m) => decide(m, decision.callId, 'gone'));
          setFocus('message');
        } else setError(t[errorKey(err)]);
      } else {
        finish({ failed: true });
        setError(t[errorKey(err)]);
      }
    } finally {
      setStatus(null);
      setDeciding(null);
      setStreaming(false);
    }
  };

  const rate = async (message: StoredMessage, index: number, feedback: 'positive' | 'negative') => {
    if (!message.id) return;
    setError(null);
    try {
      await store.with((sessionId) => api.call('feedback', { sessionId, messageId: message.id, feedback }));
      store.setMessages((m) => m.map((x, i) => (i === index ? { ...x, feedback } : x)));
      setThanked(message.id);
    } catch (err) {
      setError(t[errorKey(err)]);
    }
  };

  const handoff = async () => {
    setError(null);
    try {
      await store.with((sessionId) => api.call('handoff', { sessionId }));
      note(t.handoff_done);
      store.setWatching(true);
    } catch (err) {
      setError(t[errorKey(err)]);
    }
  };

  const last = messages[messages.length - 1];
  const waitingCard = waitingAction(messages);
  return (
    <div class="chat">
      <div class="log" ref={logRef} role="log" aria-live="polite" aria-busy={streaming ? 'true' : 'false'} aria-label={t.tab_chat} tabIndex={0}>
        <div class="msg assistant">
          <span class="sr">{t.assistant}: </span>
          {greeting}
        </div>
        {messages.length === 0 && starters.length ? (
          <div class="starters" role="group" aria-label={t.starters}>
            {starters.map((q) => (
              <button type="button" class="starter" key={q} onClick={() => void ask(q, false)}>
                {q}
              </button>
            ))}
          </div>
        ) : null}
        {messages.map((m, i) => {
          if (m.role === 'note')
            return (
              <p class="note" key={i}>
                {m.text}
              </p>
            );
          const links = m.role === 'assistant' ? sourceLinks(m.sources) : [];
          // An answer that only asks to confirm an action has no text: the card says it all.
          // Nor does an answer not begun while an action runs: the status line says what happens.
          const bubble = m.text ? true : m === last && streaming ? !status : !m.action;
          return (
            <div class={`turn ${m.role}`} key={i}>
              {bubble ? (
                <div class={`msg ${m.role}${m.failed ? ' failed' : ''}`}>
                  {m.author !== undefined ? <span class="author">{m.author || t.assistant}</span> : <span class="sr">{m.role === 'user' ? t.you : t.assistant}: </span>}
                  {m.text || (streaming && m === last && !status ? <span class="writing">{t.writing}</span> : null)}
                </div>
              ) : null}
              {links.length ? (
                <div class="sources">
                  <p class="sources-title" id={`${uid}-src-${i}`}>
                    {t.sources}
                  </p>
                  <ul aria-labelledby={`${uid}-src-${i}`}>
                    {links.map((href) => (
                      <li key={href}>
                        <a href={href} target="_blank" rel="noopener noreferrer" dir="ltr">
                          {linkText(href)}
                        </a>
                      </li>
                    ))}
                  </ul>
                </div>
              ) : null}
              {m.action ? (
                <ActionCard
                  t={t}
                  action={m.action}
                  id={`${uid}-act-${i}`}
                  busy={deciding === m.action.callId || streaming}
                  cardRef={m.action === waitingCard ? cardRef : undefined}
                  onDecide={(confirm) => void ask(confirm ? t.action_confirm : t.cancel, false, { callId: m.action!.callId, confirm })}
                />
              ) : null}
              {m.role === 'assistant' && m.id && m.text && m.author === undefined ? (
                <div class="feedback">
                  <button type="button" class="icon" aria-pressed={m.feedback === 'positive' ? 'true' : 'false'} onClick={() => rate(m, i, 'positive')}>
                    <span aria-hidden="true">👍 </span>
                    {t.feedback_up}
                  </button>
                  <button type="button" class="icon" aria-pressed={m.feedback === 'negative' ? 'true' : 'false'} onClick={() => rate(m, i, 'negative')}>
                    <span aria-hidden="true">👎 </span>
                    {t.feedback_down}
                  </button>
                  {thanked === m.id ? <span class="hint">{t.feedback_thanks}</span> : null}
                </div>
              ) : null}
            </div>
          );
        })}
      </div>
      <p class="status" role="status" aria-live="polite">
        {status?.label ?? ''}
      </p>
      {error || blocked ? (
        <p class="error" role="alert">
          {error ?? t.error_origin}
        </p>
      ) : null}
      <div class="actions">
        <button type="button" class="secondary" onClick={handoff}>
          {t.handoff}
        </button>
        <button type="button" class="secondary" aria-expanded={contact ? 'true' : 'false'} onClick={() => setContact(!contact)}>
          {t.contact_me}
        </button>
        {messages.length > 0 && !streaming ? (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              store.reset();
              setError(null);
              setThanked(null);
            }}
          >
            {t.new_conversation}
          </button>
        ) : null}
      </div>
      {contact ? (
        <Form
          t={t}
          title={t.lead_title}
          submitLabel={t.lead_submit}
          fields={[
            { name: 'name', label: t.name, type: 'text', autocomplete: 'name' },
            { name: 'email', label: t.email, type: 'email', autocomplete: 'email' },
            { name: 'phone', label: t.phone, type: 'tel', autocomplete: 'tel' },
            { name: 'message', label: t.message_field, type: 'textarea' },
          ]}
          onCancel={() => setContact(false)}
          onSubmit={async (values) => {
            await store.with((sessionId) => api.call('leads', { sessionId, ...filled(values, ['name', 'email', 'phone', 'message']) }));
            setContact(false);
            note(t.lead_done);
          }}
        />
      ) : (
        <form class="composer" onSubmit={send}>
          <label class="sr" for={`${uid}-message`}>
            {t.message_label}
          </label>
          <textarea
            id={`${uid}-message`}
            ref={messageRef}
            rows={1}
            value={draft}
            placeholder={t.message_label}
            maxLength={2000}
            onInput={(e) => setDraft((e.currentTarget as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) send(e);
            }}
          />
          <button type="submit" class="primary" aria-disabled={streaming ? 'true' : undefined}>
            {t.send}
          </button>
        </form>
      )}
    </div>
  );
}
