import { z } from 'zod';
import {
  AnalyticsView,
  BOOKING_STATUSES,
  BotView,
  BookingView,
  CAPTURE_METHODS,
  ChatMessageView,
  ConversationView,
  KB_SOURCE_TYPES,
  KB_STATUSES,
  KbDocumentView,
  KbIngestAccepted,
  LEAD_STATUSES,
  LeadView,
  SCORE_BANDS,
  SLOT_KINDS,
} from '@sa/contracts';

/*
 * The tools' output schemas: the resources of spec part 2, exactly the data the REST responses
 * carry. Each is typed against its contract view, so a field added to a view without being added
 * here (or the other way round) fails to compile.
 */

const id = z.string().meta({ format: 'uuid' });
const dateTime = z.string().meta({ format: 'date-time' });
const nullableId = id.nullable();
const nullableDateTime = dateTime.nullable();
const stringMap = z.record(z.string(), z.string());

export const BotSchema: z.ZodType<BotView> = z.object({
  id,
  name: z.string(),
  slot_kind: z.enum(SLOT_KINDS),
  language: z.string(),
  created_at: dateTime,
});

export const KbDocumentSchema: z.ZodType<KbDocumentView> = z.object({
  id,
  title: z.string(),
  source_url: z.string().nullable(),
  source_type: z.enum(KB_SOURCE_TYPES),
  status: z.enum(KB_STATUSES),
  chunk_count: z.int(),
  chatbot_id: nullableId,
  created_at: dateTime,
  failure_reason: z.string().nullable().meta({ description: 'Why a failed document failed' }),
});

export const KbIngestAcceptedSchema: z.ZodType<KbIngestAccepted> = z.object({ id, status: z.enum(KB_STATUSES) });

export const ConversationSchema: z.ZodType<ConversationView> = z.object({
  session_id: z.string(),
  message_count: z.int(),
  first_at: dateTime,
  last_at: dateTime,
  preview: z.string().nullable(),
  channel: z.string(),
});

export const ChatMessageSchema: z.ZodType<ChatMessageView> = z.object({
  id,
  tenant_id: id,
  chatbot_id: nullableId,
  session_id: z.string(),
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  feedback: z.enum(['positive', 'negative']).nullable(),
  source_urls: z.array(z.string()).nullable(),
  channel: z.string(),
  provider_message_id: z.string().nullable(),
  created_at: dateTime,
});

export const LeadSchema: z.ZodType<LeadView> = z.object({
  id,
  tenant_id: id,
  chatbot_id: nullableId,
  session_id: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  external_user_id: z.string().nullable(),
  company: z.string().nullable(),
  intent_category: z.string().nullable(),
  intent_summary: z.string().nullable(),
  score: z.int(),
  score_band: z.enum(SCORE_BANDS),
  sentiment: z.string().nullable(),
  qualification: stringMap.nullable(),
  status: z.enum(LEAD_STATUSES),
  captured_via: z.enum(CAPTURE_METHODS),
  confidence: z.number().nullable(),
  notified_at: nullableDateTime,
  asked_contact_at: nullableDateTime,
  notes: z.string().nullable(),
  country: z.string().nullable(),
  region: z.string().nullable(),
  channel: z.string(),
  created_at: dateTime,
  updated_at: dateTime,
});

export const AnalyticsSchema: z.ZodType<AnalyticsView> = z.object({
  daily: z.array(z.object({ day: z.string().meta({ format: 'date' }), user_messages: z.int(), assistant_messages: z.int() })),
  top_questions: z.array(z.object({ question: z.string(), times: z.int() })),
  unanswered: z.object({ count: z.int(), total: z.int(), rate: z.number().meta({ description: 'Percentage 0 to 100, one decimal' }) }),
  feedback: z.object({ positive: z.int(), negative: z.int() }),
  sessions: z.object({ total: z.int(), avg_messages: z.number() }),
});

export const BookingSchema: z.ZodType<BookingView> = z.object({
  id,
  tenant_id: id,
  chatbot_id: nullableId,
  name: z.string(),
  email: z.string(),
  phone: z.string(),
  notes: z.string().nullable(),
  requested_slot: nullableDateTime,
  country: z.string().nullable(),
  time_zone: z.string().nullable(),
  custom_fields: stringMap.nullable(),
  status: z.enum(BOOKING_STATUSES),
  rejection_comment: z.string().nullable(),
  confirmed_at: nullableDateTime,
  rejected_at: nullableDateTime,
  cancelled_at: nullableDateTime,
  created_at: dateTime,
});

/** What ask_bot returns: the whole answer of one chat turn. */
export interface AskBotAnswer {
  answer: string;
  session_id: string;
  chatbot_id: string | null;
  language: string;
  source_urls: string[];
  unanswered: boolean;
  assistant_message_id: string | null;
}

export const AskBotAnswerSchema: z.ZodType<AskBotAnswer> = z.object({
  answer: z.string().meta({ description: "The bot's whole reply" }),
  session_id: z.string().meta({ description: 'Pass it back as sessionId to continue this conversation' }),
  chatbot_id: nullableId,
  language: z.string().meta({ description: 'Language the reply was written in' }),
  source_urls: z.array(z.string()).meta({ description: 'Knowledge-base pages the answer drew on' }),
  unanswered: z.boolean().meta({ description: 'True when the knowledge base had no answer' }),
  assistant_message_id: nullableId,
});
