import type { AnalyticsView, BookingView, BotView, ChatMessageView, ConversationView, KbDocumentView, LeadView } from '@sa/contracts';

/*
 * The readable text that goes beside each tool's structured content: what an agent (or a person
 * reading the transcript) needs at a glance, ids included so the next call can use them.
 */

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const list = <T>(items: T[], heading: string, line: (item: T) => string) => (items.length ? `${heading}:\n${items.map((i) => `- ${line(i)}`).join('\n')}` : `${heading}.`);
const clip = (s: string, max = 160) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

export const renderBots = (bots: BotView[]) =>
  list(bots, plural(bots.length, 'bot'), (b) => `${b.name} (id ${b.id}, language ${b.language}, ${b.slot_kind} slot, created ${b.created_at})`);

export const renderDocuments = (docs: KbDocumentView[]) =>
  list(docs, plural(docs.length, 'knowledge-base document'), (d) =>
    [
      `${d.title} (id ${d.id}, ${d.source_type}, ${d.status}`,
      d.status === 'ready' ? `, ${plural(d.chunk_count, 'chunk')}` : '',
      d.source_url ? `, ${d.source_url}` : '',
      d.chatbot_id ? `, bot ${d.chatbot_id}` : ', whole workspace',
      d.failure_reason ? `; failed: ${d.failure_reason}` : '',
      ')',
    ].join(''),
  );

export const renderConversations = (sessions: ConversationView[]) =>
  list(sessions, plural(sessions.length, 'conversation'), (c) =>
    `session ${c.session_id}: ${plural(c.message_count, 'message')}, ${c.first_at} to ${c.last_at}, ${c.channel}${c.preview ? `, "${clip(c.preview, 80)}"` : ''}`,
  );

export const renderMessages = (sessionId: string, messages: ChatMessageView[]) =>
  messages.length
    ? `Conversation ${sessionId}, ${plural(messages.length, 'message')}:\n${messages
        .map((m) => `[${m.created_at}] ${m.role}: ${m.content}${m.source_urls?.length ? `\n  sources: ${m.source_urls.join(', ')}` : ''}`)
        .join('\n')}`
    : `Conversation ${sessionId} has no messages.`;

export const renderLeads = (leads: LeadView[]) =>
  list(leads, plural(leads.length, 'lead'), (l) =>
    [
      `${l.score_band} (${l.score}) ${l.name ?? 'unnamed'}`,
      l.email ? ` <${l.email}>` : '',
      l.phone ? ` ${l.phone}` : '',
      l.company ? `, ${l.company}` : '',
      `: ${l.intent_summary ?? l.intent_category ?? 'no intent recorded'}`,
      ` (id ${l.id}, status ${l.status}, session ${l.session_id}, ${l.created_at})`,
    ].join(''),
  );

export function renderAnalytics(a: AnalyticsView): string {
  const users = a.daily.reduce((n, d) => n + d.user_messages, 0);
  const replies = a.daily.reduce((n, d) => n + d.assistant_messages, 0);
  return [
    'Last 30 days:',
    `- ${plural(users, 'visitor message')}, ${plural(replies, 'bot reply', 'bot replies')} on ${plural(a.daily.filter((d) => d.user_messages + d.assistant_messages > 0).length, 'day')} with activity`,
    `- ${plural(a.sessions.total, 'session')}, ${a.sessions.avg_messages} messages per session on average`,
    `- unanswered: ${a.unanswered.count} of ${a.unanswered.total} (${a.unanswered.rate}%)`,
    `- feedback: ${a.feedback.positive} positive, ${a.feedback.negative} negative`,
    a.top_questions.length ? `- top questions: ${a.top_questions.map((q) => `"${clip(q.question, 80)}" (${q.times})`).join('; ')}` : '- no questions yet',
  ].join('\n');
}

const bookingLine = (b: BookingView) =>
  `${b.status} booking ${b.id}: ${b.name} <${b.email}> ${b.phone}, slot ${b.requested_slot ?? 'not given'}${b.time_zone ? ` (${b.time_zone})` : ''}, bot ${b.chatbot_id ?? 'none'}, created ${b.created_at}`;

export const renderBookings = (bookings: BookingView[]) => list(bookings, plural(bookings.length, 'booking'), bookingLine);

export const renderBooking = (b: BookingView) =>
  [
    bookingLine(b),
    b.notes ? `notes: ${b.notes}` : '',
    b.custom_fields && Object.keys(b.custom_fields).length ? `fields: ${Object.entries(b.custom_fields).map(([k, v]) => `${k}=${v}`).join(', ')}` : '',
    b.confirmed_at ? `confirmed at ${b.confirmed_at}` : '',
    b.rejected_at ? `rejected at ${b.rejected_at}${b.rejection_comment ? `: ${b.rejection_comment}` : ''}` : '',
    b.cancelled_at ? `cancelled at ${b.cancelled_at}` : '',
  ]
    .filter(Boolean)
    .join('\n');
