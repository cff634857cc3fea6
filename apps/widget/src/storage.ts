/** One line of the transcript as the widget keeps it. */
export interface StoredMessage {
  role: 'user' | 'assistant' | 'note';
  text: string;
  /** The assistant message's id (from the stream's last frame): feedback names it. */
  id?: string;
  sources?: string[];
  feedback?: 'positive' | 'negative';
  /** The answer broke off. */
  failed?: boolean;
  /** A reply a person wrote (handoff): their name. Rendered as text. */
  author?: string;
  /** Issue 34: the action this answer waits on (the confirm/cancel card), kept so a reload still shows it. */
  action?: StoredAction;
}

/** The confirm/cancel card of an answer: the call, its label and input, and what became of it. */
export interface StoredAction {
  callId: string;
  label: string;
  input: Record<string, unknown>;
  /** Absent while it waits for the visitor; then their decision, or `gone`: it no longer waited (409). */
  decided?: 'confirmed' | 'cancelled' | 'gone';
}

const isStoredAction = (a: unknown): a is StoredAction => {
  if (!a || typeof a !== 'object') return false;
  const o = a as Record<string, unknown>;
  return (
    typeof o['callId'] === 'string' &&
    typeof o['label'] === 'string' &&
    !!o['input'] &&
    typeof o['input'] === 'object' &&
    !Array.isArray(o['input']) &&
    (o['decided'] === undefined || o['decided'] === 'confirmed' || o['decided'] === 'cancelled' || o['decided'] === 'gone')
  );
};

export interface StoredSession {
  sessionId: string | null;
  messages: StoredMessage[];
  updatedAt: string;
}

export const MAX_STORED_MESSAGES = 50;

/**
 * A stored conversation left alone this long is forgotten when the page next loads (a new
 * session is minted on the next message): a shared computer does not show the last visitor's
 * chat forever (docs/decisions/widget.md "Issue 18: the widget's session, storage and errors").
 */
export const STORED_SESSION_IDLE_MS = 24 * 60 * 60 * 1000;

export function storageKey(botId: string): string {
  return `sa-widget:${botId}`;
}

/** The visitor's session for this bot, or an empty one (nothing stored, unreadable, or storage blocked). */
export function loadSession(storage: Pick<Storage, 'getItem'> | undefined, botId: string, now = Date.now()): StoredSession {
  const empty: StoredSession = { sessionId: null, messages: [], updatedAt: new Date(now).toISOString() };
  try {
    const raw = storage?.getItem(storageKey(botId));
    if (!raw) return empty;
    const o = JSON.parse(raw) as Partial<StoredSession>;
    const updatedAt = typeof o.updatedAt === 'string' ? Date.parse(o.updatedAt) : NaN;
    if (!(now - updatedAt < STORED_SESSION_IDLE_MS)) return empty; // idle too long, or no valid time
    const messages = Array.isArray(o.messages)
      ? o.messages
          .filter((m): m is StoredMessage => !!m && typeof m === 'object' && typeof m.text === 'string' && (m.role === 'user' || m.role === 'assistant' || m.role === 'note'))
          // A card that does not read as one is dropped, not the message.
          .map((m) => (m.action === undefined || isStoredAction(m.action) ? m : { ...m, action: undefined }))
      : [];
    return {
      sessionId: typeof o.sessionId === 'string' && o.sessionId ? o.sessionId : null,
      messages: messages.slice(-MAX_STORED_MESSAGES),
      updatedAt: o.updatedAt as string,
    };
  } catch {
    return empty;
  }
}

/** Keeps the session id and the last 50 messages. Storage may be full or blocked: the widget works on without it. */
export function saveSession(storage: Pick<Storage, 'setItem'> | undefined, botId: string, session: Pick<StoredSession, 'sessionId' | 'messages'>): void {
  try {
    const value: StoredSession = { sessionId: session.sessionId, messages: session.messages.slice(-MAX_STORED_MESSAGES), updatedAt: new Date().toISOString() };
    storage?.setItem(storageKey(botId), JSON.stringify(value));
  } catch {
    // quota or privacy mode
  }
}
