import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ConsoleChatMessageView, MessagePassageView } from '@sa/contracts';
import { ChatMessageRow, ChatMessageView, ConversationView, MESSAGE_COLUMNS, MESSAGE_ORDER, toChatMessageView } from './conversations.views';
import { TRANSCRIPT_PASSAGES_BUDGET } from './message-passages';
import { searchPlan } from './search-query';

/** Most messages GET /conversations/{sessionId} returns (list responses are bounded): the first ones. */
export const SESSION_MESSAGES_MAX = 1000;

export interface ListSessionsQuery {
  tenantId: string;
  /** Only this bot's sessions. */
  chatbotId?: string;
  /** A bot-restricted token: only sessions of these bots (none when empty; never bot-less ones). */
  botIds?: readonly string[] | null;
  /** Search text: a session matches when one of its messages does (see search-query.ts). */
  q?: string;
  /** Only sessions of this channel (the console's filter). */
  channel?: string;
  limit: number;
}

interface SessionRow {
  session_id: string;
  message_count: number;
  first_at: Date;
  last_at: Date;
  preview: string | null;
  channel: string;
}

function toConversationView(r: SessionRow): ConversationView {
  return {
    session_id: r.session_id,
    message_count: r.message_count,
    first_at: r.first_at.toISOString(),
    last_at: r.last_at.toISOString(),
    preview: r.preview,
    channel: r.channel,
  };
}

/** Reads of conversations (chat.sessions and their messages). Every method names the tenant. */
@Injectable()
export class ConversationsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Sessions, most recent activity first. */
  async listSessions(query: ListSessionsQuery): Promise<ConversationView[]> {
    const params: unknown[] = [query.tenantId, query.chatbotId ?? null, query.botIds ?? null, query.limit, query.channel ?? null];
    const plan = searchPlan(query.q);
    let search = '';
    if (plan?.kind === 'fulltext') {
      params.push(plan.text);
      search = `m.tsv @@ websearch_to_tsquery('simple', $${params.length})`;
    } else if (plan?.kind === 'substring') {
      params.push(plan.pattern);
      search = `m.content ILIKE $${params.length} ESCAPE '\\'`;
      if (plan.prefilter) {
        params.push(plan.prefilter);
        search = `m.tsv @@ to_tsquery('simple', $${params.length}) AND ${search}`;
      }
    }
    const rows: SessionRow[] = await this.ds.query(
      `SELECT s.session_id, s.message_count, s.first_at, s.last_at, s.preview, s.channel
         FROM chat.sessions s
        WHERE s.tenant_id = $1
          AND ($2::uuid IS NULL OR s.chatbot_id = $2::uuid)
          AND ($3::uuid[] IS NULL OR s.chatbot_id = ANY ($3::uuid[]))
          AND ($5::text IS NULL OR s.channel = $5::text)
          ${search ? `AND EXISTS (SELECT 1 FROM chat.messages m WHERE m.tenant_id = s.tenant_id AND m.session_id = s.session_id AND ${search})` : ''}
        ORDER BY s.last_at DESC, s.session_id DESC
        LIMIT $4`,
      params,
    );
    return rows.map(toConversationView);
  }

  /** The session's messages in chronological order (user before assistant within an exchange). */
  async messages(tenantId: string, sessionId: string, limit = SESSION_MESSAGES_MAX): Promise<ChatMessageView[]> {
    const rows: ChatMessageRow[] = await this.ds.query(
      `SELECT ${MESSAGE_COLUMNS} FROM chat.messages
        WHERE tenant_id = $1 AND session_id = $2
        ORDER BY ${MESSAGE_ORDER} LIMIT $3`,
      [tenantId, sessionId, limit],
    );
    return rows.map(toChatMessageView);
  }

  /**
   * The console's transcript for owners and admins (issue 32, "Why this answer"): the messages of
   * `messages()` and, on the bot's answers, the passages each was given (null: none recorded). A
   * person's replies and the visitor's messages have no `passages`. The latest answers keep their
   * passages up to `budget` characters of passage JSON; older ones get `passages_omitted`.
   */
  async transcript(tenantId: string, sessionId: string, limit = SESSION_MESSAGES_MAX, budget = TRANSCRIPT_PASSAGES_BUDGET): Promise<ConsoleChatMessageView[]> {
    const rows: (ChatMessageRow & { author_kind: string | null; passages: MessagePassageView[] | null })[] = await this.ds.query(
      `SELECT ${MESSAGE_COLUMNS}, author_kind, passages FROM chat.messages
        WHERE tenant_id = $1 AND session_id = $2
        ORDER BY ${MESSAGE_ORDER} LIMIT $3`,
      [tenantId, sessionId, limit],
    );
    let left = budget;
    const views: ConsoleChatMessageView[] = new Array(rows.length);
    for (let i = rows.length - 1; i >= 0; i--) {
      const r = rows[i];
      const view: ConsoleChatMessageView = toChatMessageView(r);
      if (r.role === 'assistant' && r.author_kind !== 'person') {
        const passages = Array.isArray(r.passages) ? r.passages : null;
        const size = passages ? JSON.stringify(passages).length : 0;
        if (passages && size > left) {
          view.passages = null;
          view.passages_omitted = true;
        } else {
          view.passages = passages;
          left -= size;
        }
      }
      views[i] = view;
    }
    return views;
  }
}
