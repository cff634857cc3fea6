import { Inject, Injectable, BeforeApplicationShutdown, OnApplicationShutdown } from '@nestjs/common';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { DataSource, EntityManager } from 'typeorm';
import { BotAccess, enforceBotAccess } from '@sa/bot-access';
import { BotSummary, CHAT_STREAM_ALIVE, CallerContext, ChatStreamEvent, ChatStreamSign, ChatTurnRequest, ChatTurnStarted, DEFAULT_BEHAVIOUR, ErrorCode, PassageView, PlaygroundOptions, TurnDiagnostics } from '@sa/contracts';
import { BotAccessDenied, DomainError, NotFound, QuotaExhausted, WidgetBudgetExhausted } from '@sa/errors';
import { isPoolWaitTimeout } from '@sa/db';
import { Outbox } from '@sa/events';
import { NATS_CONNECTION, RpcClient } from '@sa/messaging';
import { TokenUsage, buildMessages, describeChatModel, streamAnswer, withoutControlTokens } from '../answer/chat-model';
import { extractiveAnswer } from '../answer/extractive-responder';
import { wantsHuman } from '../answer/handoff';
import { resolveReplyLanguage } from '../answer/language';
import { phrase } from '../answer/phrases';
import { BOT_MODELS, CHAT_LOGGER } from '../chat.tokens';
import type { BotModels } from '../answer/bot-models';
import { ChatModelUnavailable } from '../answer/chat-model.exception';
import { CHAT_CONFIG, ChatConfig } from '../config/chat.config';
import { MessagesRepository, QuotaReservation } from '../conversations/messages.repository';
import type { ChatMessageView } from '../conversations/conversations.views';
import { passageRecords } from '../conversations/message-passages';
import { questionKey } from '../analytics/question-key';
import { HandoffService } from '../handoff/handoff.service';
import { newWidgetSessionId } from '../widget/widget-session-id';
import { WidgetSessionsRepository } from '../widget/widget-sessions.repository';
import { TokenUsageRepository } from '../usage/token-usage.repository';
import { StorableStream, storable } from './storable-text';
import { ActionCallsRepository, PendingAction } from '../actions/action-calls.repository';
import { ReservationSweeper } from '../usage/reservation-sweeper';
import { Resumption, TurnActions, TurnActionsResult, TurnTools } from '../actions/turn-actions';

interface Turn {
  ctx: CallerContext;
  req: ChatTurnRequest;
  sessionId: string;
  bot: BotSummary | null;
  language: string;
  detected: string | null;
  passages: PassageView[];
  /** Aborted with a CutReason. */
  abort: AbortController;
  /** Gives the turn's reserved message back to what it was counted against (the workspace quota or the bot's widget budget), in the month it was counted in. */
  release: () => Promise<void>;
  /** A playground turn (issue 32): answered from the page's history, stored and counted nowhere, ended with diagnostics. */
  playground: PlaygroundOptions | null;
  /** performance.now() at the start, once retrieval answered, and at the first text; the provider's token report. */
  clock: { started: number; retrieved: number; firstText: number | null };
  usage: TokenUsage | null;
  /** The bot's model (its workspace connection or the installation's); null: extractive. */
  model: BaseChatModel | null;
  /** Issue 34: the actions the turn may call (only with a model); null: none. */
  tools: TurnTools | null;
  /** The call the visitor decided on with this message (action_confirmation). */
  resume: Resumption | null;
  /** A call the session's last answer waited on that this message did not decide: it is recorded as cancelled. */
  dropped: PendingAction | null;
  /** A built-in handoff was called: the turn records a handoff of kind `detected`. */
  flags: { handoff: boolean };
  /** What the turn's actions came to, for the save. */
  actions: TurnActionsResult | null;
}

/** Why generation stopped early: the visitor went away, the turn's time limit, or a shutdown. */
type CutReason = 'cancelled' | 'time_limit' | 'shutdown';

/** The sign of life on a turn's subject (issue 36). */
const ALIVE_FRAME = Buffer.from(JSON.stringify({ type: CHAT_STREAM_ALIVE } satisfies ChatStreamSign));

/** How long to wait before each further try to give a reserved message back. */
const GIVE_BACK_RETRY_MS = [100, 500];

/**
 * One chat turn: checks (bot, session, quota) and retrieval happen before the turn is accepted, so
 * their errors reach the client as ordinary JSON errors; the answer is then generated in the
 * background and streamed, part by part, on the turn's subject. Whatever was produced is stored
 * (both messages, in one transaction with the turn's events), also when the visitor disconnects;
 * a turn that could not be stored is not counted against the quota.
 */
@Injectable()
export class ChatTurnService implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();

  constructor(
    private readonly rpc: RpcClient,
    private readonly messages: MessagesRepository,
    private readonly widgetSessions: WidgetSessionsRepository,
    private readonly outbox: Outbox,
    private readonly handoffs: HandoffService,
    private readonly tokens: TokenUsageRepository,
    private readonly turnActions: TurnActions,
    private readonly actionCalls: ActionCallsRepository,
    private readonly sweeper: ReservationSweeper,
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(BOT_MODELS) private readonly models: BotModels,
    @Inject(CHAT_CONFIG) private readonly config: ChatConfig,
    @Inject(CHAT_LOGGER) private readonly logger: Logger,
  ) {}

  async start(ctx: CallerContext, req: ChatTurnRequest): Promise<ChatTurnStarted> {
    // The checks and retrieval run concurrently (time to first byte); their verdicts are applied
    // in a fixed order, and a reserved message is given back when a later check refuses the turn.
    // A widget turn without a session starts a new widget session (the gateway has checked any
    // session a widget turn names); other channels take the session id the caller chose.
    // A playground turn (the console's "Try it") belongs to no session: it is never stored.
    const playground = req.playground ?? null;
    const named = playground ? undefined : req.sessionId;
    if (req.action_confirmation && !named) throw new DomainError('conflict', 'No action waits for a decision: a confirmation needs the sessionId of its conversation');
    const mintSession = req.channel === 'widget' && !named;
    const sessionId = named ?? (mintSession ? newWidgetSessionId() : randomUUID());
    // A channel's redelivery (issue 35): the message is stored already, so its stored reply streams back.
    if (named && req.provider_message_id) {
      const before = await this.messages.byProviderMessageId(ctx.tenantId, named, req.channel, req.provider_message_id);
      if (before) return this.replay(ctx, req, named, before);
    }
    const now = new Date();
    const clock = { started: performance.now(), retrieved: 0, firstText: null };
    const bucket = this.bucketOf(ctx, req, now);
    const botP = this.resolveBot(ctx, req.chatbotId);
    const chatbotIdP = req.chatbotId ? Promise.resolve(req.chatbotId) : botP.then((b) => b?.id ?? null);
    const searchP = chatbotIdP.then(async (chatbotId) => {
      const found = await this.rpc.send('knowledge.passage.search', { query: req.message, chatbotId, k: this.config.passages }, ctx);
      clock.retrieved = performance.now();
      return found;
    });
    const sessionP = named ? botP.then((b) => this.checkSession(ctx, sessionId, b?.id ?? null)) : Promise.resolve();
    const quotaP = bucket.reserve();
    // Whether a person holds the session (handoff taken) is asked alongside, not before: one
    // round trip less to the first byte. A held turn gives back what it reserved.
    const heldP = named ? this.handoffs.takenBy(ctx.tenantId, named) : Promise.resolve(null);
    // The workspace's monthly token budget (issue 32), when it has one; the playground counts nowhere.
    const budgetP = playground ? Promise.resolve(null) : this.tokens.budget(ctx.tenantId, now);
    // Issue 34: the bot's actions, when it answers through a model (actions need one).
    const flags = { handoff: false };
    const toolsP = botP.then((b) =>
      b && this.models.for(b) ? this.turnActions.toolsFor({ ctx, bot: b, sessionId, channel: req.channel, language: req.language ?? b.language, onHandoff: () => (flags.handoff = true) }) : null,
    );
    const [botR, sessionR, quotaR, searchR, heldR, budgetR, toolsR] = await Promise.allSettled([botP, sessionP, quotaP, searchP, heldP, budgetP, toolsP]);
    const reserved = quotaR.status === 'fulfilled' && quotaR.value.ok;
    const refuse = async (err: unknown): Promise<never> => {
      if (reserved) await bucket.release().catch(() => undefined);
      throw err;
    };
    if (botR.status === 'rejected') return refuse(botR.reason);
    if (sessionR.status === 'rejected') return refuse(sessionR.reason);
    if (heldR.status === 'rejected') return refuse(heldR.reason);
    if (heldR.value !== null) {
      if (reserved) await bucket.release().catch(() => undefined);
      return this.held(ctx, req, sessionId, heldR.value, botR.value);
    }
    if (quotaR.status === 'rejected') return refuse(quotaR.reason);
    if (!quotaR.value.ok) throw bucket.exhausted();
    if (budgetR.status === 'rejected') return refuse(budgetR.reason);
    const budget = budgetR.value;
    if (budget && budget.monthly_tokens !== null && budget.used_this_month >= budget.monthly_tokens) {
      return refuse(new QuotaExhausted(`The monthly token budget of ${budget.monthly_tokens} tokens is used up`, { tokens_per_month: budget.monthly_tokens, tokens_used: budget.used_this_month }));
    }
    if (searchR.status === 'rejected') return refuse(searchR.reason);
    // The call the session's last answer waits on is taken by this turn (one turn only, also when
    // two decisions race): decided by it, or dropped because the visitor moved on.
    const claimed = named ? await this.claimPending(ctx, named, req.action_confirmation).catch(refuse) : null;
    if (mintSession) await this.widgetSessions.add(ctx.tenantId, req.chatbotId!, sessionId).catch(refuse);
    const bot = playground?.behaviour ? tryBehaviour(botR.value, playground) : botR.value;
    const passages = searchR.value;
    const { language, detected } = resolveReplyLanguage({ requested: req.language, text: req.message, botLanguage: bot?.language ?? 'en' });
    const abort = new AbortController();
    const tools = toolsR.status === 'fulfilled' ? toolsR.value : null;
    const resume = claimed && req.action_confirmation ? { pending: claimed, decision: req.action_confirmation } : null;
    const turn: Turn = {
      ctx,
      req,
      sessionId,
      bot,
      language: resume?.pending.language ?? language,
      detected,
      passages,
      abort,
      release: () => bucket.release(),
      playground,
      clock,
      usage: null,
      model: this.models.for(bot),
      tools: tools ?? (resume ? { tools: [], maxCalls: 1, externalUserId: null } : null),
      resume,
      dropped: resume ? null : claimed,
      flags,
      actions: null,
    };
    const done = this.run(turn).finally(() => this.running.delete(req.turnId));
    this.running.set(req.turnId, { abort, done });
    return { turn_id: req.turnId, session_id: sessionId, chatbot_id: bot?.id ?? null, language };
  }

  /**
   * A person holds the session (handoff taken; bot and session already checked): the bot stays silent. The visitor's message is
   * stored (no model call, no retrieval, nothing counted against a quota) and the stream ends with
   * a `held` event naming the person, so the widget says who answers.
   */
  private async held(ctx: CallerContext, req: ChatTurnRequest, sessionId: string, heldBy: string, bot: Awaited<ReturnType<ChatTurnService['resolveBot']>>): Promise<ChatTurnStarted> {
    const { language, detected } = resolveReplyLanguage({ requested: req.language, text: req.message, botLanguage: bot?.language ?? 'en' });
    const question = storable(req.message);
    const stored = await this.ds.transaction((m) =>
      this.handoffs.storeVisitorMessage(m, {
        tenantId: ctx.tenantId,
        chatbotId: bot?.id ?? null,
        sessionId,
        channel: req.channel,
        content: question,
        language: detected ?? language,
        questionKey: questionKey(question),
        providerMessageId: req.provider_message_id ?? null,
      }),
    );
    setImmediate(() => this.nc.publish(req.streamSubject, Buffer.from(JSON.stringify({ type: 'held', user_message_id: stored.id, taken_by: heldBy } satisfies ChatStreamEvent))));
    return { turn_id: req.turnId, session_id: sessionId, chatbot_id: bot?.id ?? null, language };
  }

  /**
   * A channel delivered this message before (issue 35): nothing is generated, stored or counted
   * again; the stream gives the stored reply (or says a person holds the session).
   */
  private async replay(ctx: CallerContext, req: ChatTurnRequest, sessionId: string, before: { user: ChatMessageView; reply: ChatMessageView | null }): Promise<ChatTurnStarted> {
    const publish = (event: ChatStreamEvent) => this.nc.publish(req.streamSubject, Buffer.from(JSON.stringify(event)));
    const { reply } = before;
    if (reply) {
      setImmediate(() => {
        publish({ type: 'delta', text: reply.content });
        publish({ type: 'end', assistant_message_id: reply.id, unanswered: false, source_urls: reply.source_urls ?? [] });
      });
    } else {
      const heldBy = (await this.handoffs.takenBy(ctx.tenantId, sessionId)) ?? 'a person';
      setImmediate(() => publish({ type: 'held', user_message_id: before.user.id, taken_by: heldBy }));
    }
    return { turn_id: req.turnId, session_id: sessionId, chatbot_id: before.user.chatbot_id, language: req.language ?? 'en' };
  }

  /**
   * Takes the call the session waits on: with a decision, only the call it names (409 when that is
   * not the one waiting); without, whichever waits (the visitor moved on: it is recorded as cancelled).
   */
  private async claimPending(ctx: CallerContext, sessionId: string, decision: ChatTurnRequest['action_confirmation']): Promise<PendingAction | null> {
    const taken = await this.actionCalls.takePending(ctx.tenantId, sessionId, decision?.call_id ?? null);
    if (decision && !taken) throw new DomainError('conflict', 'No action with this call_id waits for a decision in this conversation (it was decided already, or the conversation moved on)');
    if (decision && taken?.created_at && Date.now() - new Date(taken.created_at).getTime() > this.config.actionConfirmationTtlMinutes * 60_000) {
      // Too old to act on: recorded as cancelled, and the visitor asks again.
      await this.ds.transaction((m) => this.actionCalls.resolve(m, ctx.tenantId, sessionId, taken.call_id, { state: 'cancelled', error: 'expired' }));
      throw new DomainError('conflict', `This action waited more than ${this.config.actionConfirmationTtlMinutes} minutes for a decision and was not run; ask again`);
    }
    return taken;
  }

  /** The visitor went away (chat.turn.cancel): stop generating; what was produced is kept. */
  cancel(turnId: string): boolean {
    const r = this.running.get(turnId);
    r?.abort.abort('cancelled' satisfies CutReason);
    return !!r;
  }

  /**
   * On shutdown (the service already takes no new turns): running turns finish their answers,
   * within SHUTDOWN_GRACE_MS; whatever still runs then is cut short and saved.
   */
  async beforeApplicationShutdown(): Promise<void> {
    if (!this.running.size) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.running.values()].map((r) => r.done)),
      new Promise((resolve) => (timer = setTimeout(resolve, this.config.shutdownGraceMs))),
    ]);
    clearTimeout(timer);
    await this.onApplicationShutdown();
  }

  /** Turns still running are cut short and saved; none is left half-written. */
  async onApplicationShutdown(): Promise<void> {
    for (const r of this.running.values()) r.abort.abort('shutdown' satisfies CutReason);
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  get activeTurns(): number {
    return this.running.size;
  }

  /**
   * Generates and streams the answer, stores the turn, then sends exactly one end or error event.
   * A turn is counted against the quota exactly when it is stored: a save that fails gives the
   * reserved message back, and the error says that nothing was stored. An answer that broke off
   * (the model failed, the time limit, a shutdown) is stored as far as it got, counted, and ends
   * with an error. Everything streamed and stored is made storable first (storable-text.ts).
   */
  private async run(turn: Turn): Promise<void> {
    // Signs of life on the turn's subject until its end or error event is out (issue 36): one at
    // once, then at the RPC pace, so an edge takes silence for a replica that died.
    const sign = () => this.nc.publish(turn.req.streamSubject, ALIVE_FRAME);
    sign();
    const signs = setInterval(sign, this.config.rpcLivenessMs);
    try {
      await this.answer(turn);
    } finally {
      clearInterval(signs);
    }
  }

  private async answer(turn: Turn): Promise<void> {
    const { req, abort } = turn;
    const timer = setTimeout(() => abort.abort('time_limit' satisfies CutReason), this.config.maxTurnMs);
    const publish = (event: ChatStreamEvent) => this.nc.publish(req.streamSubject, Buffer.from(JSON.stringify(event)));
    const reply = new StorableStream((text) => {
      turn.clock.firstText ??= performance.now();
      publish({ type: 'delta', text });
    });
    let unanswered = false;
    let handoff: 'explicit' | 'detected' | null = null;
    let sources: string[] = [];
    let failure: { code: ErrorCode; message: string } | null = null;
    try {
      if (wantsHuman(req.message, turn.language)) {
        handoff = 'explicit';
        reply.push(phrase('handoff', turn.language));
      } else if (turn.model && turn.tools) {
        const result = await this.generateWithActions(turn, (piece) => reply.push(piece), publish);
        unanswered = result.unanswered;
        if (result.handoff || turn.flags.handoff) handoff = 'detected';
        sources = unanswered ? [] : urlsOf(turn.passages);
      } else if (turn.model) {
        const result = await this.generate(turn, (piece) => reply.push(piece));
        unanswered = result.unanswered;
        if (result.handoff) handoff = 'detected';
        sources = unanswered ? [] : urlsOf(turn.passages);
      } else {
        const answer = extractiveAnswer({ question: req.message, passages: turn.passages, language: turn.language, fallbackReply: turn.bot?.behaviour?.fallback_reply });
        unanswered = !answer.relevant;
        sources = answer.sources;
        for await (const piece of answer.chunks) {
          if (abort.signal.aborted) break;
          reply.push(piece);
        }
      }
    } catch (err) {
      if (!abort.signal.aborted) {
        this.logger.error({ request_id: turn.ctx.requestId, err: (err as Error).message }, 'answer generation failed');
        failure = { code: 'internal_error', message: 'The answer could not be completed' };
        // The provider failed before a word of the answer (refused, unreachable, unknown model):
        // nothing is stored or charged (issue 32), the stream ends with the error.
        if (err instanceof ChatModelUnavailable && !reply.text) failure = { code: 'service_unavailable', message: "The bot's model is unavailable; nothing was stored or counted" };
      }
    } finally {
      clearTimeout(timer);
      reply.end();
    }
    failure ??= cutShort(abort.signal.reason);
    sources = sources.map(storable);
    if (turn.playground) {
      // Stored nowhere, counted nowhere: the end says why the bot answered as it did.
      publish(failure ? { type: 'error', ...failure, stored: false } : { type: 'end', assistant_message_id: req.turnId, unanswered, source_urls: sources, diagnostics: this.diagnostics(turn, unanswered, handoff !== null) });
      return;
    }

    if (failure?.code === 'service_unavailable' && !reply.text && !abort.signal.aborted) {
      await this.giveBack(turn);
      publish({ type: 'error', ...failure, stored: false });
      return;
    }

    let saved: string;
    try {
      saved = await this.saveWaiting(turn, reply.text, unanswered, sources, handoff);
    } catch (err) {
      this.logger.error({ request_id: turn.ctx.requestId, err: (err as Error).message }, 'saving the chat turn failed; the reserved message is given back');
      await this.giveBack(turn);
      publish({ type: 'error', code: 'internal_error', message: 'The answer was not saved, and it was not counted against the message quota', stored: false });
      return;
    }
    publish(failure ? { type: 'error', ...failure, stored: true } : { type: 'end', assistant_message_id: saved, unanswered, source_urls: sources });
  }

  /**
   * Stores the turn, waiting for a database connection as long as the turn may last: when many
   * answers end at once (5,000 open widget streams, issue 36), their saves queue for the pool's
   * connections, and one that waited the pool's 5 s was lost although nothing had been written.
   * Only a save that never got a connection is tried again; any other failure is the caller's.
   */
  private async saveWaiting(turn: Turn, text: string, unanswered: boolean, sources: string[], handoff: 'explicit' | 'detected' | null): Promise<string> {
    const giveUpAt = Date.now() + this.config.maxTurnMs;
    for (;;) {
      try {
        return await this.save(turn, text, unanswered, sources, handoff);
      } catch (err) {
        if (!isPoolWaitTimeout(err) || Date.now() >= giveUpAt) throw err;
      }
    }
  }

  /** Gives the turn's reserved message back (the turn was not stored), retrying briefly: PostgreSQL may be recovering. */
  private async giveBack(turn: Turn): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await turn.release();
        return;
      } catch (err) {
        if (attempt >= GIVE_BACK_RETRY_MS.length) {
          this.logger.error({ request_id: turn.ctx.requestId, tenant_id: turn.ctx.tenantId, err: (err as Error).message }, 'could not give back the message of a turn that was not stored');
          return;
        }
        await new Promise((r) => setTimeout(r, GIVE_BACK_RETRY_MS[attempt]));
      }
    }
  }

  /** Streams the model's answer; the model's control tokens ([HANDOFF], [NO_ANSWER]) are taken off and reported. */
  private async generate(turn: Turn, emit: (piece: string) => void): Promise<{ unanswered: boolean; handoff: boolean }> {
    const messages = await this.modelMessages(turn, false);
    const fallback = turn.bot?.behaviour?.fallback_reply ?? null;
    let text = '';
    let handoff = false;
    let signalled = false;
    let unanswered = turn.passages.length === 0;
    const deltas = withoutControlTokens(streamAnswer(turn.model!, messages, turn.abort.signal, (usage) => (turn.usage = usage)), (token) => {
      if (token === 'handoff') handoff = true;
      else unanswered = signalled = true;
    });
    for await (const delta of deltas) {
      // The owner's fallback reply replaces whatever the model adds after [NO_ANSWER].
      if (signalled && fallback) continue;
      text += delta;
      emit(delta);
    }
    if (!text.trim() && unanswered && !turn.abort.signal.aborted) emit(fallback ?? phrase('noKnowledge', turn.language));
    return { unanswered, handoff };
  }

  /**
   * Issue 34: the model's answer with the turn's actions (the tool loop), or the rest of a turn
   * whose waiting call the visitor just decided. Action frames go out as they happen; the calls'
   * records and any call the answer now waits on are kept on the turn for the save.
   */
  private async generateWithActions(turn: Turn, emit: (piece: string) => void, publish: (event: ChatStreamEvent) => void): Promise<{ unanswered: boolean; handoff: boolean }> {
    const messages = turn.resume ? [] : await this.modelMessages(turn, true);
    const fallback = turn.bot?.behaviour?.fallback_reply ?? null;
    let text = '';
    let handoff = false;
    let signalled = false;
    let unanswered = turn.passages.length === 0 && !turn.resume;
    const run = this.turnActions.run(turn.model!, messages, turn.tools!, {
      language: turn.language,
      signal: turn.abort.signal,
      resume: turn.resume,
      onUsage: (usage) => (turn.usage = usage),
      frame: (action) => publish({ type: 'action', action }),
    });
    const texts = async function* (): AsyncGenerator<string> {
      for (;;) {
        const next = await run.next();
        if (next.done) {
          turn.actions = next.value;
          return;
        }
        yield next.value;
      }
    };
    const deltas = withoutControlTokens(texts(), (token) => {
      if (token === 'handoff') handoff = true;
      else unanswered = signalled = true;
    });
    for await (const delta of deltas) {
      if (signalled && fallback) continue;
      text += delta;
      emit(delta);
    }
    // An action that ran answers the question unless the model says it could not.
    const acted = (turn.actions?.calls.some((c) => c.record.state === 'ran') ?? false) || turn.actions?.resolved?.state === 'ran';
    if (acted && !signalled) unanswered = false;
    if (!text.trim() && unanswered && !turn.abort.signal.aborted) emit(fallback ?? phrase('noKnowledge', turn.language));
    return { unanswered, handoff };
  }

  /** The model's input for a new question: the prompt, the conversation so far (the page's, in the playground), the question. */
  private async modelMessages(turn: Turn, tools: boolean) {
    const history = turn.playground
      ? turn.playground.history
      : this.config.historyMessages
        ? await this.messages.history(turn.ctx.tenantId, turn.sessionId, this.config.historyMessages)
        : [];
    return buildMessages({
      question: turn.req.message,
      passages: turn.passages,
      history,
      language: turn.language,
      botName: turn.bot?.name,
      behaviour: turn.bot?.behaviour,
      historyMessages: this.config.historyMessages,
      tools,
    });
  }

  private diagnostics(turn: Turn, unanswered: boolean, handoff: boolean): TurnDiagnostics {
    const ms = (at: number) => Math.round(at - turn.clock.started);
    return {
      passages: passageRecords(turn.passages),
      language: turn.language,
      detected_language: turn.detected,
      unanswered,
      handoff,
      model: turn.model ? describeChatModel(turn.model) : 'extractive',
      tokens: turn.usage,
      timings: { retrieval_ms: ms(turn.clock.retrieved), first_text_ms: turn.clock.firstText === null ? null : ms(turn.clock.firstText), total_ms: ms(performance.now()) },
    };
  }

  /** Stores both messages and the turn's events in one transaction; `text` and `sources` are storable already. */
  private async save(turn: Turn, text: string, unanswered: boolean, sources: string[], handoff: 'explicit' | 'detected' | null): Promise<string> {
    const { ctx, req } = turn;
    const question = storable(req.message);
    return this.ds.transaction(async (m) => {
      // Stored, so counted: the reservation is settled with the messages (issue 36).
      await this.messages.settleTurn(m, req.turnId);
      const { userMessage, assistantMessage } = await this.messages.insertTurn(m, {
        tenantId: ctx.tenantId,
        chatbotId: turn.bot?.id ?? null,
        sessionId: turn.sessionId,
        channel: req.channel,
        user: { content: question, language: turn.detected ?? turn.language, providerMessageId: req.provider_message_id ?? null },
        assistant: { content: text, sourceUrls: sources, unanswered, passages: turn.passages, tokens: turn.usage },
      });
      if (turn.usage) await this.tokens.add(m, ctx.tenantId, turn.usage.prompt + turn.usage.completion, new Date());
      await this.saveActions(m, turn, assistantMessage.id);
      const common = { session_id: turn.sessionId, chatbot_id: turn.bot?.id ?? null, channel: req.channel };
      await this.outbox.add(m, 'chat.turn.completed', ctx.tenantId, {
        ...common,
        user_message_id: userMessage.id,
        assistant_message_id: assistantMessage.id,
        language: turn.language,
        unanswered,
        user_message: userMessage.content,
        user_message_at: userMessage.created_at,
        ...(req.contact ? { contact: req.contact } : {}),
      });
      if (unanswered) {
        await this.outbox.add(m, 'message.unanswered', ctx.tenantId, { ...common, message_id: assistantMessage.id, user_message_id: userMessage.id, question, language: turn.language });
      }
      if (handoff) {
        await this.handoffs.request(m, { tenantId: ctx.tenantId, sessionId: turn.sessionId, chatbotId: turn.bot?.id ?? null, channel: req.channel, kind: handoff, reason: null, question });
        await this.outbox.add(m, 'conversation.handoff', ctx.tenantId, {
          ...common,
          kind: handoff,
          reason: handoff === 'explicit' ? 'The visitor asked for a person' : 'The model detected that the visitor needs a person',
          message_id: userMessage.id,
          question,
          language: turn.language,
        });
      }
      return assistantMessage.id;
    });
  }

  /** Issue 34: the turn's call records, the decided or dropped waiting call, and the call the answer now waits on. */
  private async saveActions(m: EntityManager, turn: Turn, messageId: string): Promise<void> {
    const at = { tenantId: turn.ctx.tenantId, chatbotId: turn.bot?.id ?? null, sessionId: turn.sessionId };
    if (turn.dropped) await this.actionCalls.resolve(m, at.tenantId, at.sessionId, turn.dropped.call_id, { state: 'cancelled', error: 'not_confirmed' });
    const done = turn.actions;
    if (!done) {
      // Cut short before the decided call came to anything: it did not run.
      if (turn.resume) await this.actionCalls.resolve(m, at.tenantId, at.sessionId, turn.resume.pending.call_id, { state: 'cancelled', error: 'not_run' });
      return;
    }
    if (done.resolved) await this.actionCalls.resolve(m, at.tenantId, at.sessionId, done.resolved.callId, done.resolved);
    await this.actionCalls.insert(m, { ...at, messageId }, done.calls);
    if (done.pending) await this.actionCalls.setPending(m, at.tenantId, at.sessionId, { ...done.pending, chatbot_id: at.chatbotId });
  }

  /**
   * What a turn is counted against: a widget turn (anonymous visitors) against its bot's monthly
   * widget budget, every other turn (POST /v1/chat, MCP ask_bot) against the workspace's monthly
   * message quota, so widget traffic can never use up the workspace's own API use.
   */
  private bucketOf(ctx: CallerContext, req: ChatTurnRequest, now: Date): { reserve(): Promise<QuotaReservation>; release(): Promise<void>; exhausted(): DomainError } {
    const m = this.ds.manager;
    if (req.playground) {
      // The playground counts against nothing (issue 32): the console refuses it without live access.
      return { reserve: async () => ({ ok: true, used: 0 }), release: async () => undefined, exhausted: () => new DomainError('internal_error', 'unreachable') };
    }
    // Issue 36: the reservation is held under the turn and this replica, so that a replica that
    // dies before storing the turn has it given back by the others (ReservationSweeper).
    const hold = { turnId: req.turnId, holder: this.sweeper.replicaId };
    const release = async () => void (await this.messages.releaseTurn(m, req.turnId));
    if (req.channel === 'widget') {
      const botId = req.chatbotId;
      const limit = ctx.entitlements.widgetMessagesPerBotPerMonth;
      return {
        reserve: () => (botId ? this.messages.reserveWidgetMessage(m, ctx.tenantId, botId, limit, now, hold) : Promise.reject(new BotAccessDenied('A widget turn must name its bot'))),
        release,
        exhausted: () => new WidgetBudgetExhausted(limit),
      };
    }
    const limit = ctx.entitlements.messagesPerMonth;
    return {
      reserve: () => this.messages.reserveMessage(m, ctx.tenantId, limit, now, hold),
      release,
      exhausted: () => new QuotaExhausted(`The monthly message quota of ${limit} messages is used up`, { messages_per_month: limit }),
    };
  }

  private async resolveBot(ctx: CallerContext, chatbotId: string | undefined): Promise<BotSummary | null> {
    enforceBotAccess(ctx, BotAccess.MustName, chatbotId);
    if (chatbotId) {
      const [bot] = await this.rpc.send('bots.bot.describe', { ids: [chatbotId] }, ctx);
      if (!bot) throw new NotFound('Bot');
      return bot;
    }
    // No chatbotId (unrestricted token): the workspace's first bot, if it has one (docs/decisions/chat.md).
    const [first] = await this.rpc.send('bots.bot.list', {}, ctx);
    return first ? { id: first.id, name: first.name, language: first.language } : null;
  }

  /** A session belongs to the bot it started with; another bot (or a token without it) may not continue it. */
  private async checkSession(ctx: CallerContext, sessionId: string, chatbotId: string | null): Promise<void> {
    const owner = await this.messages.sessionBot(ctx.tenantId, sessionId);
    if (owner === undefined) return;
    if (owner !== chatbotId) throw new BotAccessDenied('This session belongs to another bot');
  }
}

/** The error a turn cut short ends with; none when the visitor went away (nobody is listening). */
function cutShort(reason: unknown): { code: ErrorCode; message: string } | null {
  if (reason === ('time_limit' satisfies CutReason)) return { code: 'service_unavailable', message: 'The answer took too long and was cut short' };
  if (reason === ('shutdown' satisfies CutReason)) return { code: 'service_unavailable', message: 'The chat service stopped; the answer was cut short' };
  return null;
}

/** The bot with the behaviour being tried in the playground over its saved one, for this turn only. */
function tryBehaviour(bot: BotSummary | null, playground: PlaygroundOptions): BotSummary | null {
  if (!bot || !playground.behaviour) return bot;
  const tried = Object.fromEntries(Object.entries(playground.behaviour).filter(([, v]) => v !== undefined));
  return { ...bot, behaviour: { ...(bot.behaviour ?? DEFAULT_BEHAVIOUR), ...tried } };
}

function urlsOf(passages: PassageView[]): string[] {
  return [...new Set(passages.map((p) => p.source_url).filter((u): u is string => !!u))];
}
