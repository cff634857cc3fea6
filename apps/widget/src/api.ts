import { WidgetApiError, readApiError } from './errors';
import { type ActionUpdate, createSseParser, readChatFrame } from './sse';

export interface BotConfig {
  bot_id?: string;
  name?: string;
  language?: string;
  theme?: { color?: string | null; position?: string | null; greeting?: string | null; launcher_text?: string | null };
  identity?: boolean;
  /** Buttons before the first message (issue 32). */
  starter_questions?: unknown;
  /** Not from the API: the gateway refused this page's origin. */
  blocked?: boolean;
}

export interface ChatResult {
  sessionId: string | null;
  messageId?: string;
  sources: string[];
  /** A person holds the conversation (handoff): the bot did not answer. */
  heldBy?: string;
  /** Issue 34: the action the answer ends waiting on (the confirm/cancel card). */
  awaiting?: ActionUpdate;
}

/** The body of POST …/chat (WidgetChatBody). */
export interface ChatBody {
  message: string;
  sessionId?: string;
  language?: string;
  /** The visitor's decision on the action the last answer waits on (issue 34). */
  action_confirmation?: { call_id: string; confirm: boolean };
}

/** What the caller of `chat` hears while the answer streams. */
export interface ChatHandlers {
  /** Each piece of the answer's text, as it arrives. */
  onText(text: string): void;
  /** Each action frame (status line, confirm card), in order. */
  onAction?(action: ActionUpdate): void;
  /** The turn was accepted (200): the stream begins. */
  onOpen?(): void;
}

/** The answer of the long poll for a person's replies (POST …/replies). */
export interface Replies {
  state: 'none' | 'requested' | 'taken' | 'released';
  taken_by_label: string | null;
  replies: { id: string; content: string; author_label: string | null; created_at: string }[];
  cursor: string;
}

/**
 * The widget routes of the gateway the script came from. No cookies (`credentials: 'omit'`), JSON
 * bodies, answers read as `{data}`; refusals become WidgetApiError (status 0: the network failed).
 */
export class WidgetApi {
  private readonly base: string;
  constructor(origin: string, botId: string) {
    this.base = `${origin}/widget/v1/bots/${encodeURIComponent(botId)}`;
  }

  /**
   * The gateway's refusal of this page's origin, read from the config answer (its 403 carries the
   * CORS grant; a POST's preflight does not, so the browser would only report a network error).
   */
  private refused: WidgetApiError | null = null;

  /** Waits (long poll) for a person's replies after `after`; `signal` stops it. */
  async replies(sessionId: string, after: string | undefined, signal: AbortSignal): Promise<Replies> {
    const res = await this.request('POST', 'replies', after ? { sessionId, after } : { sessionId }, signal);
    return ((await res.json()) as { data: Replies }).data;
  }

  private async request(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
    if (this.refused) throw this.refused;
    let res: Response;
    try {
      res = await fetch(`${this.base}/${path}`, {
        method,
        credentials: 'omit',
        mode: 'cors',
        headers: body === undefined ? undefined : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (err) {
      throw new WidgetApiError(0, 'network_error', err instanceof Error ? err.message : 'network error');
    }
    if (!res.ok) {
      let json: unknown;
      try {
        json = await res.json();
      } catch {
        json = undefined;
      }
      throw readApiError(res.status, json);
    }
    return res;
  }

  async call<T>(path: string, body?: unknown): Promise<T> {
    const res = await this.request(body === undefined ? 'GET' : 'POST', path, body);
    const json = (await res.json()) as { data: T };
    return json.data;
  }

  async config(): Promise<BotConfig> {
    try {
      return await this.call<BotConfig>('config');
    } catch (err) {
      if (err instanceof WidgetApiError && err.code === 'origin_not_allowed') this.refused = err;
      throw err;
    }
  }

  async createSession(): Promise<string> {
    return (await this.call<{ session_id: string }>('sessions', {})).session_id;
  }

  /**
   * Sends one message (or a decision on a waiting action) and hands each piece of the answer to
   * `onText`, and each action frame to `onAction`, as they arrive.
   */
  async chat(body: ChatBody, { onText, onAction, onOpen }: ChatHandlers, signal?: AbortSignal): Promise<ChatResult> {
    const res = await this.request('POST', 'chat', body, signal);
    onOpen?.();
    const result: ChatResult = { sessionId: res.headers.get('x-session-id') ?? body.sessionId ?? null, sources: [] };
    let ended: 'stop' | 'error' | null = null;
    let errorCode = 'stream_interrupted';
    const parser = createSseParser((data) => {
      const frame = readChatFrame(data);
      if (!frame || ended) return;
      if (frame.content) onText(frame.content);
      if (frame.action) {
        if (frame.action.state === 'awaiting_confirmation') result.awaiting = frame.action;
        else if (result.awaiting?.callId === frame.action.callId) result.awaiting = undefined;
        onAction?.(frame.action);
      }
      if (frame.finish) {
        ended = frame.finish;
        if (frame.messageId) result.messageId = frame.messageId;
        if (frame.sourceUrls) result.sources = frame.sourceUrls;
        if (frame.errorCode) errorCode = frame.errorCode;
        if (frame.heldBy !== undefined) result.heldBy = frame.heldBy;
      }
    });
    const reader = res.body?.getReader();
    if (reader) {
      const decoder = new TextDecoder();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.push(decoder.decode(value, { stream: true }));
        }
        parser.push(decoder.decode());
      } catch {
        ended = null;
      }
    }
    parser.end();
    if (ended !== 'stop') throw new WidgetApiError(200, ended === 'error' ? errorCode : 'stream_interrupted', 'The answer was interrupted', {});
    return result;
  }
}
