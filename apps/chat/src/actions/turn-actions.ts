import { Inject, Injectable } from '@nestjs/common';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import type { Logger } from 'pino';
import type { ActionConfirmation, ActionFrame, ActionFrameState, BotSummary, CallerContext, ChatChannel } from '@sa/contracts';
import { langchainMessages } from '@sa/llm-config';
import { RpcClient } from '@sa/messaging';
import { OutboundPolicy, outboundPolicyFromEnv } from '@sa/net-guard';
import { SecretBox } from '@sa/secret-box';
import type { TokenUsage } from '../answer/chat-model';
import { CHAT_LOGGER } from '../chat.tokens';
import { CHAT_CONFIG, ChatConfig } from '../config/chat.config';
import { WidgetSessionsRepository } from '../widget/widget-sessions.repository';
import { actionPhrase } from './action-phrases';
import type { CallToStore, PendingAction } from './action-calls.repository';
import { actionTools } from './action-tools';
import { builtinTools } from './builtin-tools';
import { mcpTools } from './mcp-tools';
import { type LoopTool, type PendingCall, type ToolCallRecord, resumeMessages, toolLoop } from './tool-loop';

/*
 * A chat turn's actions (issue 34): which tools the turn offers (the bot's enabled actions, its
 * built-ins, its MCP servers' tools; only when the bot answers through a model), whether the
 * conversation's visitor is verified, and the loop's events as stream frames and call records.
 */

/** What a turn may use. */
export interface TurnTools {
  tools: LoopTool[];
  maxCalls: number;
  /** The verified visitor of a widget session (identify with a valid user hash); null: anonymous. */
  externalUserId: string | null;
}

/** The turn a set of tools is made for. */
export interface ExtraToolsContext {
  ctx: CallerContext;
  bot: BotSummary;
  sessionId: string;
  channel: ChatChannel;
  language: string;
  /** A built-in handoff: the turn records a handoff of kind `detected`. */
  onHandoff: () => void;
}

/** A turn that resumes a call the visitor decided on. */
export interface Resumption {
  pending: PendingAction;
  decision: ActionConfirmation;
}

/** What the actions of a turn came to, for the turn's save. */
export interface TurnActionsResult {
  calls: CallToStore[];
  /** The call the answer now waits on. */
  pending: PendingAction | null;
  /** What the resumed call came to (its waiting row is updated). */
  resolved: { callId: string; state: 'ran' | 'cancelled' | 'refused'; record?: ToolCallRecord; error?: string } | null;
}

/** An action's name for people, on the confirm card: `cancel_order` → "Cancel order". */
export function actionTitle(name: string): string {
  const words = name.replace(/[_-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').trim().toLowerCase();
  return words ? words[0]!.toUpperCase() + words.slice(1) : name;
}

const asProperties = (t: LoopTool) => (t.parameters.properties && typeof t.parameters.properties === 'object' ? (t.parameters.properties as Record<string, unknown>) : null);

/** The input as the visitor sees it on the card: only what the model fills (the verified visitor's id is the service's, and goes unseen). */
function shownInput(tool: LoopTool | undefined, input: Record<string, unknown>): Record<string, unknown> {
  const props = tool ? asProperties(tool) : null;
  return props ? Object.fromEntries(Object.entries(input).filter(([k]) => k in props)) : input;
}

@Injectable()
export class TurnActions {
  private readonly box: SecretBox;
  private readonly policy: OutboundPolicy = outboundPolicyFromEnv();

  constructor(
    private readonly rpc: RpcClient,
    private readonly widgetSessions: WidgetSessionsRepository,
    @Inject(CHAT_CONFIG) config: ChatConfig,
    @Inject(CHAT_LOGGER) private readonly logger: Logger,
  ) {
    this.box = new SecretBox(config.secretKey.key);
  }

  /**
   * The tools of a turn of `bot`, or null when it offers none. A failure to read them (the bots
   * service is away) leaves the turn without actions rather than failing it.
   */
  async toolsFor(c: ExtraToolsContext): Promise<TurnTools | null> {
    try {
      const [specs, externalUserId] = await Promise.all([
        this.rpc.send('bots.action.specs', { botId: c.bot.id }, c.ctx),
        c.channel === 'widget' ? this.widgetSessions.verifiedUser(c.ctx.tenantId, c.sessionId) : Promise.resolve(null),
      ]);
      const own = actionTools(specs.actions, { box: this.box, policy: this.policy, externalUserId });
      const builtins = builtinTools(specs.settings.builtins, { rpc: this.rpc, caller: c.ctx, chatbotId: c.bot.id, sessionId: c.sessionId, channel: c.channel, language: c.language, onHandoff: c.onHandoff });
      // A name is the model's only handle on a tool: the bot's own action keeps a name a built-in would take.
      const taken = new Set(own.map((t) => t.name.toLowerCase()));
      const offered = [...own, ...builtins.filter((t) => !taken.has(t.name.toLowerCase()))];
      const remote = mcpTools(specs.mcp_servers ?? [], {
        box: this.box,
        policy: this.policy,
        reserved: offered.map((t) => t.name),
        // OAuth: an access token that expired or was refused is traded for a fresh one (the bots service refreshes).
        freshAuth: async (serverId, staleHash) =>
          (await this.rpc.send('bots.mcp-server.token', { botId: c.bot.id, serverId, ...(staleHash ? { stale_hash: staleHash } : {}) }, c.ctx)).auth_sealed,
      });
      // MCP's ask_bot shows no action frames and takes no decision: a call that needs the visitor is not offered there.
      const tools = [...offered, ...remote].filter((t) => c.channel !== 'mcp' || !t.confirm);
      return tools.length ? { tools, maxCalls: specs.settings.max_calls_per_turn, externalUserId } : null;
    } catch (err) {
      this.logger.error({ request_id: c.ctx.requestId, chatbot_id: c.bot.id, err: (err as Error).message }, "the bot's actions could not be read; the turn answers without them");
      return null;
    }
  }

  /**
   * Runs the turn's model with its tools: `messages` for a new question, or the stored messages of
   * a resumed call, which is first run (confirmed) or not (cancelled). Streams the reply's text to
   * `emit` and each action's frames to `frame`; returns the records for the save.
   */
  async *run(
    model: BaseChatModel,
    messages: BaseMessage[],
    turn: TurnTools,
    opts: { language: string; signal: AbortSignal; resume: Resumption | null; onUsage: (u: TokenUsage) => void; frame: (f: ActionFrame) => void },
  ): AsyncGenerator<string, TurnActionsResult> {
    const byName = new Map(turn.tools.map((t) => [t.name, t]));
    const result: TurnActionsResult = { calls: [], pending: null, resolved: null };
    // Running and its outcome say what is happening (the status text); the card and its outcome name what is asked.
    const labelOf = (state: ActionFrameState, name: string) =>
      state === 'awaiting_confirmation' || state === 'cancelled' ? actionTitle(name) : (byName.get(name)?.label ?? actionPhrase('running', opts.language));
    const frame = (state: ActionFrameState, callId: string, name: string, input?: Record<string, unknown>) =>
      opts.frame({ call_id: callId, name, label: labelOf(state, name), state, ...(input ? { input } : {}) });
    const verified = turn.externalUserId !== null;
    let history = messages;
    let afterToolResult = false;
    let failed = false;

    if (opts.resume) {
      const { pending: p, decision } = opts.resume;
      const { mapStoredMessagesToChatMessages } = langchainMessages();
      const call: PendingCall = { id: p.call_id, name: p.action_name, input: p.input, afterToolResult: p.after_tool_result };
      const stored = mapStoredMessagesToChatMessages(p.messages);
      const tool = byName.get(p.action_name);
      if (!decision.confirm) {
        frame('cancelled', call.id, call.name);
        result.resolved = { callId: call.id, state: 'cancelled', error: 'cancelled' };
        history = resumeMessages(stored, call, 'cancelled');
      } else if (!tool || (tool.verifiedOnly && !verified)) {
        // Switched off or removed since, or the visitor is not verified (any more): it does not run.
        const refusal = !tool ? 'unknown_tool' : 'needs_verified_visitor';
        frame('refused', call.id, call.name);
        result.resolved = { callId: call.id, state: 'refused', error: refusal };
        history = resumeMessages(stored, call, refusal);
      } else {
        frame('running', call.id, call.name);
        const outcome = await tool.run(call.input, opts.signal);
        failed = !outcome.ok;
        frame(outcome.ok ? 'done' : 'failed', call.id, call.name);
        result.resolved = { callId: call.id, state: 'ran', record: { id: call.id, name: call.name, input: call.input, state: 'ran', outcome, refusal: null } };
        history = resumeMessages(stored, call, outcome);
        afterToolResult = true;
      }
    }

    let wrote = false;
    for await (const e of toolLoop(model, history, turn.tools, { maxCalls: turn.maxCalls, verified, signal: opts.signal, onUsage: opts.onUsage, afterToolResult })) {
      if (e.type === 'text') {
        wrote ||= e.text.trim() !== '';
        yield e.text;
      } else if (e.type === 'running') frame('running', e.call_id, e.name);
      else if (e.type === 'call') {
        const source = byName.get(e.record.name)?.source ?? 'custom';
        result.calls.push({ record: e.record, source });
        if (e.record.state === 'ran') {
          failed ||= !e.record.outcome?.ok;
          frame(e.record.outcome?.ok ? 'done' : 'failed', e.record.id, e.record.name);
        } else if (e.record.state === 'refused') frame('refused', e.record.id, e.record.name);
      } else {
        const { mapChatMessagesToStoredMessages } = langchainMessages();
        const tool = byName.get(e.call.name);
        result.pending = {
          chatbot_id: null,
          call_id: e.call.id,
          action_name: e.call.name,
          input: e.call.input,
          after_tool_result: e.call.afterToolResult,
          messages: mapChatMessagesToStoredMessages(e.messages),
          language: opts.language,
        };
        if (!wrote) yield actionPhrase('confirm', opts.language);
        wrote = true;
        frame('awaiting_confirmation', e.call.id, e.call.name, shownInput(tool, e.call.input));
      }
    }
    // The visitor is never left with silence after a failed action.
    if (!wrote && failed && !opts.signal.aborted) yield actionPhrase('failed', opts.language);
    return result;
  }
}
