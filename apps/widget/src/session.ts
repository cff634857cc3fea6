import type { WidgetApi } from './api';
import { WidgetApiError } from './errors';
import { type StoredMessage, type StoredSession, loadSession, saveSession } from './storage';

function browserStorage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

/**
 * The visitor's session with one bot: its id (minted by the server on first need) and the
 * transcript, mirrored to localStorage (`sa-widget:<botId>`) so that a reload continues it.
 */
export class SessionStore {
  private state: StoredSession;
  private minting: Promise<string> | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly api: WidgetApi,
    private readonly botId: string,
    private readonly storage: Storage | undefined = browserStorage(),
  ) {
    this.state = loadSession(this.storage, botId);
  }

  get sessionId(): string | null {
    return this.state.sessionId;
  }

  get messages(): StoredMessage[] {
    return this.state.messages;
  }

  /** A person was asked for or holds the conversation: the Chat tab polls for their replies (not stored). */
  watching = false;
  /** The replies poll's cursor and the person last announced. */
  repliesCursor: string | undefined;
  heldBy: string | null = null;

  setWatching(watching: boolean): void {
    if (this.watching === watching) return;
    this.watching = watching;
    this.listeners.forEach((l) => l());
  }

  /** An answer is streaming in (not stored: it outlives the Chat tab's component, not the page). */
  streaming = false;

  setStreaming(streaming: boolean): void {
    this.streaming = streaming;
    this.listeners.forEach((l) => l());
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private commit(next: Partial<StoredSession>): void {
    this.state = { ...this.state, ...next };
    saveSession(this.storage, this.botId, this.state);
    this.listeners.forEach((l) => l());
  }

  setSessionId(sessionId: string | null): void {
    if (sessionId !== this.state.sessionId) this.commit({ sessionId });
  }

  setMessages(update: (messages: StoredMessage[]) => StoredMessage[]): void {
    this.commit({ messages: update(this.state.messages) });
  }

  /** The session id, minted once (concurrent callers share the one request). */
  ensure(): Promise<string> {
    if (this.state.sessionId) return Promise.resolve(this.state.sessionId);
    this.minting ??= this.api.createSession().then(
      (id) => {
        this.minting = null;
        this.setSessionId(id);
        return id;
      },
      (err: unknown) => {
        this.minting = null;
        throw err;
      },
    );
    return this.minting;
  }

  /** Runs `fn` with the session id; a session the server no longer accepts (403 session_forbidden) is replaced once. */
  async with<T>(fn: (sessionId: string) => Promise<T>): Promise<T> {
    const id = await this.ensure();
    try {
      return await fn(id);
    } catch (err) {
      if (!(err instanceof WidgetApiError) || err.code !== 'session_forbidden') throw err;
      this.commit({ sessionId: null, messages: [] });
      return fn(await this.ensure());
    }
  }

  /** Forgets the conversation (the "New conversation" button). */
  reset(): void {
    this.watching = false;
    this.repliesCursor = undefined;
    this.heldBy = null;
    this.commit({ sessionId: null, messages: [] });
  }
}
