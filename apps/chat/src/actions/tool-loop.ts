import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { AIMessageChunk, BaseMessage } from '@langchain/core/messages';
import { concat } from '@langchain/core/utils/stream';
import { langchainMessages } from '@sa/llm-config';
import { type TokenUsage, streamChunks } from '../answer/chat-model';

/*
 * The model's tool calling in one turn (issue 34, "The loop"): the model answers with the tools
 * offered; each call it makes is checked (known tool, the turn's limit, a verified visitor where
 * the tool needs one, the visitor's confirmation where it needs one), run, and its result handed
 * back as data; the model then answers again, until it answers without a call. The caller owns
 * the transport: it turns the events into stream frames, stores the records, and, when the loop
 * stops for a confirmation, keeps the pending call until the visitor decides (`resumeMessages`).
 */

/** A tool the model may call this turn: one of the bot's actions or a built-in one. */
export interface LoopTool {
  /** The tool name the model sees (an action's name: `^[a-zA-Z][a-zA-Z0-9_-]{0,63}$`). */
  name: string;
  /** For the model. */
  description: string;
  /** Where it comes from: the bot's own action, a built-in one, or a remote MCP server's tool (records, analytics). */
  source: 'custom' | 'builtin' | 'mcp';
  /** For people while it runs ("Checking your order…"); null: a generic one in the reply's language. */
  label: string | null;
  /** The input as a JSON Schema object, as the model sees it (members the service fills left out). */
  parameters: Record<string, unknown>;
  /** The visitor confirms each call before it runs. */
  confirm: boolean;
  /** Only a verified visitor's conversation may call it. */
  verifiedOnly: boolean;
  /** Runs the call; expected failures are outcomes, not exceptions. */
  run(input: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutcome>;
}

/** What a call came to (ActionCallResult of @sa/actions, or a built-in's equivalent). */
export interface ToolOutcome {
  ok: boolean;
  status: number | null;
  duration_ms: number;
  /** The result as text, already cut to size. */
  result: string;
  error: string | null;
  /** For people. */
  message: string;
}

/** Why a call did not run. */
export type Refusal = 'unknown_tool' | 'over_limit' | 'needs_verified_visitor' | 'bad_arguments' | 'not_run';

/** One call the model made, and what became of it. */
export interface ToolCallRecord {
  id: string;
  name: string;
  input: Record<string, unknown>;
  /** ran: `outcome` says how it went; refused: `refusal` says why; awaiting: the visitor has to confirm. */
  state: 'ran' | 'refused' | 'awaiting_confirmation';
  outcome: ToolOutcome | null;
  refusal: Refusal | null;
}

/** A call that waits for the visitor's confirmation; the turn ends with it. */
export interface PendingCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
  /** The visitor's confirmation is asked although the tool needs none: the model asked for it after reading a tool result. */
  afterToolResult: boolean;
}

export type LoopEvent =
  /** A piece of the reply's text. */
  | { type: 'text'; text: string }
  /** A call starts running (the widget shows a status line). */
  | { type: 'running'; call_id: string; name: string }
  /** A call is over: ran, or refused. */
  | { type: 'call'; record: ToolCallRecord }
  /** The loop stops: this call waits for the visitor; `messages` are the turn's messages up to it (the model's call included), to resume from. */
  | { type: 'confirm'; call: PendingCall; messages: BaseMessage[] };

export interface LoopOptions {
  /** Calls that may run this turn (the bot's `max_calls_per_turn`); refused past it, and the model answers without tools. */
  maxCalls: number;
  /** The conversation's visitor is verified (identified with a valid user hash). */
  verified: boolean;
  signal: AbortSignal;
  /** The token usage of all the rounds so far, summed. */
  onUsage?: (usage: TokenUsage) => void;
  /** The messages already hold a tool result of this turn (a resumed turn): a new tool needs confirmation from the start. */
  afterToolResult?: boolean;
}

/** What the model reads as a tool's result: data, in one JSON document it cannot mistake for our words. */
export function toolResultContent(outcome: ToolOutcome): string {
  return JSON.stringify({ ok: outcome.ok, status: outcome.status, error: outcome.error, result: outcome.result });
}

const REFUSAL_TEXT: Record<Refusal, string> = {
  unknown_tool: 'There is no such action.',
  over_limit: 'The limit of actions for this message is reached: answer with what you have.',
  needs_verified_visitor: 'This action is only for signed-in (verified) visitors. This visitor is not verified: say so, and do not try again.',
  bad_arguments: 'The arguments were not a JSON object.',
  not_run: 'Not run: another action of the same answer waits for the visitor to confirm.',
};

/** A refused call's result for the model. */
export function refusalContent(refusal: Refusal): string {
  return JSON.stringify({ ok: false, error: refusal, result: REFUSAL_TEXT[refusal] });
}

const asObject = (v: unknown): Record<string, unknown> | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/**
 * The messages to answer from once the visitor decided on a pending call: the turn's messages up to
 * the call (the confirm event's, the model's call included) and the call's result (or the
 * visitor's refusal, or why it could not run), as data.
 */
export function resumeMessages(messages: readonly BaseMessage[], call: PendingCall, outcome: ToolOutcome | 'cancelled' | Refusal): BaseMessage[] {
  const { ToolMessage } = langchainMessages();
  const content =
    outcome === 'cancelled' ? JSON.stringify({ ok: false, error: 'cancelled', result: 'The visitor cancelled this action: it did not run.' }) : typeof outcome === 'string' ? refusalContent(outcome) : toolResultContent(outcome);
  return [...messages, new ToolMessage({ tool_call_id: call.id, content })];
}

/**
 * Runs the turn's model with the tools until it answers without a call, yielding the reply's text
 * and what happens to each call. Rules, in this order, per call:
 *  - a name that is not offered is refused (unknown_tool); arguments that are not an object too;
 *  - past `maxCalls` calls this turn it is refused (over_limit), and the next round forbids calls
 *    (tool_choice none);
 *  - a tool for verified visitors only is refused in an unverified conversation;
 *  - a tool that needs confirmation, or any tool the model asks for only after it has read a tool
 *    result of this turn and has not called before (a result's text must never be able to start
 *    another action on its own), ends the loop with `confirm`; the other calls of that answer are
 *    not run;
 *  - otherwise the call runs, and its result goes back to the model as data.
 * Text the model writes beside its calls is streamed as it comes.
 */
export async function* toolLoop(model: BaseChatModel, messages: readonly BaseMessage[], tools: readonly LoopTool[], opts: LoopOptions): AsyncGenerator<LoopEvent> {
  const { ToolMessage } = langchainMessages();
  const byName = new Map(tools.map((t) => [t.name, t]));
  const offered = tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } }));
  const history = [...messages];
  const total: TokenUsage = { prompt: 0, completion: 0 };
  const called = new Set<string>();
  let calls = 0;
  let readResult = opts.afterToolResult ?? false;
  let toolsLeft = tools.length > 0;

  for (;;) {
    if (opts.signal.aborted) return;
    // Past the limit the tools stay declared (Anthropic refuses a history of tool calls without
    // them) but the model may not call one: tool_choice none.
    const runnable = offered.length && model.bindTools ? model.bindTools(offered, toolsLeft ? {} : { tool_choice: 'none' }) : model;
    let whole: AIMessageChunk | undefined;
    const round: TokenUsage = { prompt: 0, completion: 0 };
    for await (const chunk of streamChunks(runnable, history, opts.signal, (u) => Object.assign(round, u), model)) {
      whole = whole === undefined ? chunk : concat(whole, chunk);
      const text = chunk.text;
      if (text) yield { type: 'text', text };
    }
    if (round.prompt || round.completion) opts.onUsage?.({ prompt: total.prompt + round.prompt, completion: total.completion + round.completion });
    total.prompt += round.prompt;
    total.completion += round.completion;
    const toolCalls = toolsLeft ? (whole?.tool_calls ?? []) : [];
    if (!whole || toolCalls.length === 0 || opts.signal.aborted) return;

    history.push(whole);
    let pending: PendingCall | null = null;
    for (const tc of toolCalls) {
      const id = tc.id ?? `call_${calls}_${tc.name}`;
      const input = asObject(tc.args);
      const tool = byName.get(tc.name);
      const refuse = (refusal: Refusal) => {
        history.push(new ToolMessage({ tool_call_id: id, content: refusalContent(refusal) }));
        return { type: 'call' as const, record: { id, name: tc.name, input: input ?? {}, state: 'refused' as const, outcome: null, refusal } };
      };
      if (pending) {
        yield refuse('not_run');
        continue;
      }
      if (!tool) {
        yield refuse('unknown_tool');
        continue;
      }
      if (!input) {
        yield refuse('bad_arguments');
        continue;
      }
      if (calls >= opts.maxCalls) {
        toolsLeft = false;
        yield refuse('over_limit');
        continue;
      }
      if (tool.verifiedOnly && !opts.verified) {
        yield refuse('needs_verified_visitor');
        continue;
      }
      const afterToolResult = readResult && !called.has(tool.name) && !tool.confirm;
      if (tool.confirm || afterToolResult) {
        pending = { id, name: tool.name, input, afterToolResult };
        continue;
      }
      calls++;
      called.add(tool.name);
      yield { type: 'running', call_id: id, name: tool.name };
      const outcome = await tool.run(input, opts.signal);
      history.push(new ToolMessage({ tool_call_id: id, content: toolResultContent(outcome) }));
      readResult = true;
      yield { type: 'call', record: { id, name: tool.name, input, state: 'ran', outcome, refusal: null } };
    }
    if (pending) {
      yield { type: 'call', record: { id: pending.id, name: pending.name, input: pending.input, state: 'awaiting_confirmation', outcome: null, refusal: null } };
      yield { type: 'confirm', call: pending, messages: [...history] };
      return;
    }
    if (calls >= opts.maxCalls) toolsLeft = false;
  }
}
