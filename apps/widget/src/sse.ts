/**
 * Server-sent events as the chat route sends them: frames `data: <json>` separated by a blank
 * line. Feed decoded text as it arrives (chunks may split a frame anywhere); each complete frame's
 * data (its `data:` lines joined by "\n") is handed to `onData`. Comments and other fields are ignored.
 */
export function createSseParser(onData: (data: string) => void): { push(text: string): void; end(): void } {
  let buffer = '';
  const frame = (block: string) => {
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    }
    if (data.length) onData(data.join('\n'));
  };
  const drain = () => {
    let at: number;
    while ((at = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      frame(block);
    }
  };
  return {
    push(text: string) {
      buffer += text.replace(/\r\n?/g, '\n');
      drain();
    },
    // A frame without its blank line at the very end is incomplete: the stream was cut off.
    end() {
      buffer = '';
    },
  };
}

/** What an `action` frame can say about a call (issue 34; ACTION_FRAME_STATES of the contracts). */
export const ACTION_STATES = ['running', 'done', 'failed', 'refused', 'awaiting_confirmation', 'cancelled'] as const;
export type ActionState = (typeof ACTION_STATES)[number];

/**
 * An action of the turn as the widget reads it from a frame's additive `action` member: the
 * status line while it runs, the confirm/cancel card when it waits for the visitor.
 */
export interface ActionUpdate {
  callId: string;
  name: string;
  /** Text for people, in the reply's language ("Checking your order…"). Rendered as text. */
  label: string;
  state: ActionState;
  /** awaiting_confirmation: what the call will send, shown on the card as key/value text. */
  input?: Record<string, unknown>;
}

/** What one chat frame says (the OpenAI-style chunk, plus the widget's last-frame members). */
export interface ChatFrame {
  content: string;
  finish: 'stop' | 'error' | null;
  messageId?: string;
  sourceUrls?: string[];
  errorCode?: string;
  /** A person holds the conversation: no answer came (issue 19). */
  heldBy?: string;
  /** Issue 34: an action of the turn started, ended, was refused or waits for the visitor. */
  action?: ActionUpdate;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The `action` member, when it has every member the widget needs with the right types; else nothing. */
function readAction(v: unknown): ActionUpdate | undefined {
  if (!isObject(v)) return undefined;
  const { call_id, name, label, state, input } = v;
  if (typeof call_id !== 'string' || !call_id || typeof name !== 'string' || typeof label !== 'string') return undefined;
  if (typeof state !== 'string' || !(ACTION_STATES as readonly string[]).includes(state)) return undefined;
  const action: ActionUpdate = { callId: call_id, name, label, state: state as ActionState };
  if (isObject(input)) action.input = input;
  return action;
}

export function readChatFrame(data: string): ChatFrame | undefined {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (!json || typeof json !== 'object') return undefined;
  const o = json as { choices?: { delta?: { content?: unknown }; finish_reason?: unknown }[]; message_id?: unknown; source_urls?: unknown; error?: { code?: unknown }; handoff?: { taken_by?: unknown }; action?: unknown };
  const choice = Array.isArray(o.choices) ? o.choices[0] : undefined;
  const content = typeof choice?.delta?.content === 'string' ? choice.delta.content : '';
  const finish = choice?.finish_reason === 'stop' || choice?.finish_reason === 'error' ? choice.finish_reason : o.error ? 'error' : null;
  const frame: ChatFrame = { content, finish };
  if (typeof o.message_id === 'string') frame.messageId = o.message_id;
  if (Array.isArray(o.source_urls)) frame.sourceUrls = o.source_urls.filter((u): u is string => typeof u === 'string');
  if (o.error && typeof o.error.code === 'string') frame.errorCode = o.error.code;
  if (o.handoff && typeof o.handoff.taken_by === 'string') frame.heldBy = o.handoff.taken_by;
  const action = readAction(o.action);
  if (action) frame.action = action;
  return frame;
}
