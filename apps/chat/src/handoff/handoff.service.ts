import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { NatsConnection } from 'nats';
import { DataSource, EntityManager } from 'typeorm';
import { BotAccess, enforceBotAccess, mayUseBot, visibleBots } from '@sa/bot-access';
import {
  CallerContext,
  HandoffConversationView,
  HandoffMessageView,
  HandoffQueueRequest,
  HandoffReleaseRequest,
  HandoffReplyRequest,
  HandoffTakeRequest,
  HandoffView,
  WidgetRepliesRequest,
  WidgetRepliesView,
  CHANNEL_KINDS,
  PERSON_REPLY_EVENT,
  handoffLiveSubject,
} from '@sa/contracts';
import { BotAccessDenied, DomainError, NotFound } from '@sa/errors';
import { Outbox } from '@sa/events';
import { NATS_CONNECTION } from '@sa/messaging';
import { MessagesRepository } from '../conversations/messages.repository';
import { HandoffRepository, NewHandoff } from './handoff.repository';

/** How far back the widget's first poll looks for a person's replies. */
const FIRST_POLL_WINDOW_MS = 60_000;

/**
 * The handoff queue: sessions that asked for a person (requested), held by one (taken: the bot is
 * silent, ChatTurnService asks `takenBy`), handed back (released). Every change of a session's
 * handoff publishes on its live subject (handoffLiveSubject), which the gateway's long poll waits on.
 */
@Injectable()
export class HandoffService {
  constructor(
    private readonly handoffs: HandoffRepository,
    private readonly messages: MessagesRepository,
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly outbox: Outbox,
  ) {}

  /** Within the transaction that writes conversation.handoff: the session enters the queue (unless it is there already). */
  request(m: EntityManager, h: NewHandoff): Promise<boolean> {
    return this.handoffs.request(m, h);
  }

  /** The visitor's message while a person holds the session (no reply from the bot). */
  storeVisitorMessage(
    m: EntityManager,
    t: { tenantId: string; chatbotId: string | null; sessionId: string; channel: string; content: string; language: string | null; questionKey: string | null; providerMessageId?: string | null },
  ): Promise<HandoffMessageView> {
    return this.handoffs.insertMessage(m, { ...t, role: 'user', author: null });
  }

  /** The label of the person holding the session, or null when the bot answers. */
  takenBy(tenantId: string, sessionId: string): Promise<string | null> {
    return this.handoffs.takenBy(tenantId, sessionId);
  }

  queue(ctx: CallerContext, req: HandoffQueueRequest): Promise<HandoffView[]> {
    return this.handoffs.queue(ctx.tenantId, visibleBots(ctx), req.include === 'all');
  }

  async get(ctx: CallerContext, sessionId: string): Promise<HandoffConversationView> {
    const handoff = await this.visible(ctx, await this.handoffs.get(ctx.tenantId, sessionId));
    return { handoff, messages: await this.handoffs.transcript(ctx.tenantId, sessionId) };
  }

  /** Takes the session over: 409 when another person holds it; taking it again is a no-op. */
  async take(ctx: CallerContext, req: HandoffTakeRequest): Promise<HandoffView> {
    const view = await this.ds.transaction(async (m) => {
      const h = await this.visible(ctx, await this.handoffs.get(ctx.tenantId, req.sessionId, m, true));
      if (h.state === 'taken') {
        if (h.taken_by_id === req.person.id) return h;
        throw new DomainError('conflict', `${h.taken_by_label ?? 'Another person'} has taken this conversation over`, { taken_by: h.taken_by_label });
      }
      return this.handoffs.setState(m, ctx.tenantId, req.sessionId, 'taken', req.person);
    });
    this.announce(ctx.tenantId, req.sessionId);
    return view;
  }

  /** A reply of the person holding the session: stored as an assistant message written by a person. 409 unless they hold it. */
  async reply(ctx: CallerContext, req: HandoffReplyRequest): Promise<HandoffMessageView> {
    const message = await this.ds.transaction(async (m) => {
      const h = await this.visible(ctx, await this.handoffs.get(ctx.tenantId, req.sessionId, m, true));
      if (h.state !== 'taken' || h.taken_by_id !== req.person.id) {
        throw new DomainError('conflict', h.state === 'taken' ? `${h.taken_by_label ?? 'Another person'} has taken this conversation over` : 'Take the conversation over before replying');
      }
      const stored = await this.handoffs.insertMessage(m, {
        tenantId: ctx.tenantId,
        chatbotId: h.chatbot_id,
        sessionId: req.sessionId,
        channel: h.channel,
        role: 'assistant',
        content: req.text,
        language: null,
        questionKey: null,
        author: req.person,
      });
      // Issue 35: a channel's conversation gets the reply where it came from (the channels service
      // sends it); the widget polls for it instead.
      if ((CHANNEL_KINDS as readonly string[]).includes(h.channel)) {
        await this.outbox.add(m, PERSON_REPLY_EVENT, ctx.tenantId, { session_id: req.sessionId, chatbot_id: h.chatbot_id, channel: h.channel, message_id: stored.id, content: req.text });
      }
      return stored;
    });
    this.announce(ctx.tenantId, req.sessionId);
    return message;
  }

  /** Hands the session back to the bot (any owner or admin may; releasing a released session is a no-op). */
  async release(ctx: CallerContext, req: HandoffReleaseRequest): Promise<HandoffView> {
    const view = await this.ds.transaction(async (m) => {
      const h = await this.visible(ctx, await this.handoffs.get(ctx.tenantId, req.sessionId, m, true));
      return h.state === 'released' ? h : this.handoffs.setState(m, ctx.tenantId, req.sessionId, 'released', null);
    });
    this.announce(ctx.tenantId, req.sessionId);
    return view;
  }

  /** The widget's poll: the session's handoff state and a person's replies after the cursor. */
  async widgetReplies(ctx: CallerContext, req: WidgetRepliesRequest): Promise<WidgetRepliesView> {
    enforceBotAccess(ctx, BotAccess.Widget, req.chatbotId);
    const owner = await this.messages.sessionBot(ctx.tenantId, req.sessionId);
    if (owner !== undefined && owner !== req.chatbotId) throw new BotAccessDenied('This session belongs to another bot');
    const h = await this.handoffs.get(ctx.tenantId, req.sessionId);
    const mine = !!h && h.chatbot_id === req.chatbotId;
    const { replies, cursor } = await this.handoffs.repliesAfter(ctx.tenantId, req.sessionId, req.after ?? null, FIRST_POLL_WINDOW_MS);
    return {
      state: mine ? h.state : 'none',
      taken_by_label: mine && h.state === 'taken' ? h.taken_by_label : null,
      replies: mine ? replies : [],
      cursor,
    };
  }

  /** Wakes the long polls waiting on this session (core NATS: at most once; a poll also ends on its timeout). */
  private announce(tenantId: string, sessionId: string): void {
    this.nc.publish(handoffLiveSubject(tenantId, sessionId));
  }

  /** 404 for a session that never asked for a person, or one of a bot the caller may not use. */
  private async visible(ctx: CallerContext, h: HandoffView | null): Promise<HandoffView> {
    if (!h || !mayUseBot(ctx, h.chatbot_id)) throw new NotFound('Handoff');
    return h;
  }
}
