import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AnalyticsChannelsView, AnalyticsQuestionsView, ChatChannel } from '@sa/contracts';
import { MESSAGE_ORDER } from '../conversations/conversations.views';
import { AnalyticsView, DailyCountsView, TopQuestionView } from './analytics.views';

/** The analytics window of spec part 8, in days. */
export const ANALYTICS_DAYS = 30;
export const TOP_QUESTIONS = 10;
/** Longest list of each kind in question insights (issue 19) unless the caller says (CHAT_ANALYTICS_QUESTIONS). */
export const QUESTION_INSIGHTS = 20;
const DAY_MS = 86_400_000;

export interface AnalyticsQuery {
  tenantId: string;
  /** Only this bot's messages and sessions. */
  chatbotId?: string;
  /** A bot-restricted token: only these bots (none when empty; never bot-less messages). */
  botIds?: readonly string[] | null;
  /** Defaults to the current time; the window ends with its UTC day. */
  now?: Date;
  /** Window length in days, today included. */
  days?: number;
}

interface DayRow extends DailyCountsView {
  unanswered: number;
  positive: number;
  negative: number;
}

/** `part` of `whole` as a percentage rounded to `decimals` places, 0 when whole is 0 (integer inputs, no float drift). */
export function percentage(part: number, whole: number, decimals = 1): number {
  if (whole <= 0) return 0;
  const scale = 10 ** decimals;
  return Math.round((part * 100 * scale) / whole) / scale;
}

/** The UTC days of the window, as [first day, last day] (YYYY-MM-DD) and [start, end) instants. */
export function analyticsWindow(now: Date, days: number): { firstDay: string; lastDay: string; start: Date; end: Date } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const start = new Date(today - (days - 1) * DAY_MS);
  const end = new Date(today + DAY_MS);
  return { firstDay: start.toISOString().slice(0, 10), lastDay: new Date(today).toISOString().slice(0, 10), start, end };
}

/**
 * The Analytics summary, aggregated in PostgreSQL (no message is loaded): per-day counts over
 * every UTC day of the window (zero-filled), the most asked questions, unanswered and feedback
 * counts of assistant messages, and the sessions active in the window.
 */
@Injectable()
export class AnalyticsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async summary(query: AnalyticsQuery): Promise<AnalyticsView> {
    const days = query.days ?? ANALYTICS_DAYS;
    if (!Number.isInteger(days) || days < 1) throw new Error(`analytics window must be a positive whole number of days, got ${days}`);
    const w = analyticsWindow(query.now ?? new Date(), days);
    // $1 tenant, $2 chatbot, $3 allowed bots, $4 start, $5 end: the same filter in every query.
    const params = [query.tenantId, query.chatbotId ?? null, query.botIds ?? null, w.start.toISOString(), w.end.toISOString()];
    const bots = `($2::uuid IS NULL OR chatbot_id = $2::uuid) AND ($3::uuid[] IS NULL OR chatbot_id = ANY ($3::uuid[]))`;
    const inWindow = `tenant_id = $1 AND created_at >= $4::timestamptz AND created_at < $5::timestamptz AND ${bots}`;

    const [daily, top, sessions] = await Promise.all([
      this.ds.query(
        `SELECT to_char(d.day, 'YYYY-MM-DD') AS day,
                coalesce(c.user_messages, 0)::int AS user_messages,
                coalesce(c.assistant_messages, 0)::int AS assistant_messages,
                coalesce(c.unanswered, 0)::int AS unanswered,
                coalesce(c.positive, 0)::int AS positive,
                coalesce(c.negative, 0)::int AS negative
           FROM generate_series($6::date, $7::date, interval '1 day') AS d(day)
           LEFT JOIN (
             SELECT (created_at AT TIME ZONE 'UTC')::date AS day,
                    count(*) FILTER (WHERE role = 'user') AS user_messages,
                    count(*) FILTER (WHERE role = 'assistant') AS assistant_messages,
                    count(*) FILTER (WHERE role = 'assistant' AND unanswered) AS unanswered,
                    count(*) FILTER (WHERE role = 'assistant' AND feedback = 'positive') AS positive,
                    count(*) FILTER (WHERE role = 'assistant' AND feedback = 'negative') AS negative
               FROM chat.messages
              WHERE ${inWindow}
              GROUP BY 1
           ) AS c ON c.day = d.day::date
          ORDER BY d.day`,
        [...params, w.firstDay, w.lastDay],
      ) as Promise<DayRow[]>,
      // Groups by count, then the latest phrasing of each of the top groups (index on question_key).
      this.ds.query(
        `WITH groups AS (
           SELECT question_key, count(*)::int AS times, max(created_at) AS latest
             FROM chat.messages
            WHERE ${inWindow} AND role = 'user' AND question_key IS NOT NULL
            GROUP BY question_key
            ORDER BY times DESC, latest DESC, question_key
            LIMIT ${TOP_QUESTIONS}
         )
         SELECT p.content AS question, g.times
           FROM groups g
           CROSS JOIN LATERAL (
             SELECT content FROM chat.messages
              WHERE ${inWindow} AND role = 'user' AND question_key = g.question_key
              ORDER BY created_at DESC, id DESC LIMIT 1
           ) AS p
          ORDER BY g.times DESC, g.latest DESC, g.question_key`,
        params,
      ) as Promise<TopQuestionView[]>,
      this.ds.query(
        `SELECT count(*)::int AS total, coalesce(sum(message_count), 0)::bigint::text AS messages
           FROM chat.sessions
          WHERE tenant_id = $1 AND last_at >= $4::timestamptz AND last_at < $5::timestamptz AND ${bots}`,
        params,
      ) as Promise<{ total: number; messages: string }[]>,
    ]);

    const sum = (key: 'unanswered' | 'assistant_messages' | 'positive' | 'negative') => daily.reduce((n, d) => n + d[key], 0);
    const total = sum('assistant_messages');
    const unanswered = sum('unanswered');
    const sessionsTotal = sessions[0].total;
    return {
      daily: daily.map((d) => ({ day: d.day, user_messages: d.user_messages, assistant_messages: d.assistant_messages })),
      top_questions: top.map((t) => ({ question: t.question, times: t.times })),
      unanswered: { count: unanswered, total, rate: percentage(unanswered, total) },
      feedback: { positive: sum('positive'), negative: sum('negative') },
      sessions: { total: sessionsTotal, avg_messages: sessionsTotal ? Math.round((Number(sessions[0].messages) * 100) / sessionsTotal) / 100 : 0 },
    };
  }

  /**
   * Issue 35 ("Analytics splits by channel"): per channel, the sessions active in the window (the
   * rule of the summary's sessions; a session's channel is its first turn's) and the visitor
   * messages and unanswered replies sent through it (each message's own channel). Channels with
   * neither are left out; the busiest first. Playground and evaluation turns are never stored
   * (chat-turn.service.ts), so nothing needs filtering out here.
   */
  async channels(query: AnalyticsQuery): Promise<AnalyticsChannelsView> {
    const days = query.days ?? ANALYTICS_DAYS;
    const w = analyticsWindow(query.now ?? new Date(), days);
    const bots = `($2::uuid IS NULL OR chatbot_id = $2::uuid) AND ($3::uuid[] IS NULL OR chatbot_id = ANY ($3::uuid[]))`;
    const rows: { channel: ChatChannel; conversations: number; messages: number; unanswered: number }[] = await this.ds.query(
      `WITH s AS (
         SELECT channel, count(*)::int AS conversations
           FROM chat.sessions
          WHERE tenant_id = $1 AND last_at >= $4::timestamptz AND last_at < $5::timestamptz AND ${bots}
          GROUP BY channel
       ), m AS (
         SELECT channel,
                count(*) FILTER (WHERE role = 'user')::int AS messages,
                count(*) FILTER (WHERE role = 'assistant' AND unanswered)::int AS unanswered
           FROM chat.messages
          WHERE tenant_id = $1 AND created_at >= $4::timestamptz AND created_at < $5::timestamptz AND ${bots}
          GROUP BY channel
       )
       SELECT coalesce(s.channel, m.channel) AS channel,
              coalesce(s.conversations, 0) AS conversations,
              coalesce(m.messages, 0) AS messages,
              coalesce(m.unanswered, 0) AS unanswered
         FROM s FULL JOIN m ON m.channel = s.channel
        WHERE coalesce(s.conversations, 0) > 0 OR coalesce(m.messages, 0) > 0
        ORDER BY conversations DESC, messages DESC, channel`,
      [query.tenantId, query.chatbotId ?? null, query.botIds ?? null, w.start.toISOString(), w.end.toISOString()],
    );
    return { days, channels: rows.map((r) => ({ channel: r.channel, conversations: r.conversations, messages: r.messages, unanswered: r.unanswered })) };
  }

  /**
   * Question insights of the console (issue 19): user messages grouped by question key (as the top
   * questions), each with its latest wording. The top list ranks groups by how often they were
   * asked; the unanswered list holds the groups whose latest asking got a reply marked
   * `unanswered` (the rule of the unanswered rate), ranked by how often they went unanswered. A
   * question the bot answers later leaves the unanswered list by itself.
   */
  async questions(query: AnalyticsQuery & { limit?: number }): Promise<AnalyticsQuestionsView> {
    const days = query.days ?? ANALYTICS_DAYS;
    const limit = query.limit ?? QUESTION_INSIGHTS;
    const w = analyticsWindow(query.now ?? new Date(), days);
    const bots = `($2::uuid IS NULL OR chatbot_id = $2::uuid) AND ($3::uuid[] IS NULL OR chatbot_id = ANY ($3::uuid[]))`;
    const rows: { question: string; times: number; unanswered_times: number; last_asked_at: Date; top_rank: string; unanswered_rank: string | null }[] = await this.ds.query(
      `WITH asked AS (
         SELECT id, role, content, question_key, created_at,
                lead(role) OVER turn = 'assistant' AND lead(unanswered) OVER turn AS reply_unanswered
           FROM chat.messages
          WHERE tenant_id = $1 AND created_at >= $4::timestamptz AND created_at < $5::timestamptz AND ${bots}
         WINDOW turn AS (PARTITION BY session_id ORDER BY ${MESSAGE_ORDER})
       ), groups AS (
         SELECT question_key,
                count(*)::int AS times,
                count(*) FILTER (WHERE reply_unanswered)::int AS unanswered_times,
                max(created_at) AS last_asked_at,
                (array_agg(content ORDER BY created_at DESC, id DESC))[1] AS question,
                (array_agg(coalesce(reply_unanswered, false) ORDER BY created_at DESC, id DESC))[1] AS latest_unanswered
           FROM asked
          WHERE role = 'user' AND question_key IS NOT NULL
          GROUP BY question_key
       ), ranked AS (
         SELECT *, row_number() OVER (ORDER BY times DESC, last_asked_at DESC, question_key) AS top_rank,
                CASE WHEN latest_unanswered THEN row_number() OVER (PARTITION BY latest_unanswered ORDER BY unanswered_times DESC, last_asked_at DESC, question_key) END AS unanswered_rank
           FROM groups
       )
       SELECT question, times, unanswered_times, last_asked_at, top_rank, unanswered_rank
         FROM ranked WHERE top_rank <= $6 OR unanswered_rank <= $6`,
      [query.tenantId, query.chatbotId ?? null, query.botIds ?? null, w.start.toISOString(), w.end.toISOString(), limit],
    );
    const byRank = (rank: (r: (typeof rows)[number]) => string | null) =>
      rows.filter((r) => rank(r) !== null && Number(rank(r)) <= limit).sort((a, b) => Number(rank(a)) - Number(rank(b)));
    return {
      days,
      top: byRank((r) => r.top_rank).map((r) => ({ question: r.question, times: r.times, last_asked_at: r.last_asked_at.toISOString() })),
      unanswered: byRank((r) => r.unanswered_rank).map((r) => ({ question: r.question, times: r.unanswered_times, last_asked_at: r.last_asked_at.toISOString() })),
    };
  }
}
