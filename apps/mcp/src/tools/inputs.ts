import { z } from 'zod';
import {
  BOOKING_ACTIONS,
  BOOKING_COMMENT_MAX,
  BOOKING_STATUSES,
  CHAT_MESSAGE_MAX,
  KB_TEXT_MAX,
  KB_TITLE_MAX,
  SESSION_ID_MAX,
  canonicalLanguage,
  charLength,
  isHttpUrl,
  isIsoWithOffset,
} from '@sa/contracts';

/*
 * The tools' input schemas: the limits of spec part 4, in the parameter names of the REST twins
 * (chatbotId, sessionId, requestedSlot …). Lengths count characters (code points) as the REST
 * API does, and as JSON Schema's minLength/maxLength do. Unknown parameters are refused, so a
 * misspelt one (chatbot_id) is reported instead of silently ignored.
 */

const chars = (min: number, max: number, description: string) =>
  z
    .string()
    .refine((s) => charLength(s) >= min && charLength(s) <= max, { message: `must be ${min} to ${max} characters` })
    .meta({ minLength: min, maxLength: max, description });

const text = (min: number, max: number, description: string) =>
  chars(min, max, description).refine((s) => min === 0 || s.trim().length > 0, { message: 'must not be blank' });

const uuid = (description: string) => z.guid({ message: 'must be a UUID' }).meta({ description });

const chatbotId = (what: string) =>
  uuid(`Bot to ${what}. Tokens restricted to specific bots must pass one of their bots.`).optional();

export const NoInput = z.strictObject({});

export const ListKnowledgeInput = z.strictObject({ chatbotId: chatbotId('list the documents of (default: every bot)') });

export const AddKnowledgeInput = z
  .strictObject({
    title: text(1, KB_TITLE_MAX, 'Title of the document'),
    url: z
      .string()
      .refine(isHttpUrl, { message: 'must be an absolute http(s) URL' })
      .meta({ format: 'uri', description: 'A page to fetch and index (http or https). Give url or text.' })
      .optional(),
    text: chars(1, KB_TEXT_MAX, 'Raw text to index. Give url or text.').optional(),
    chatbotId: uuid('Bot whose knowledge base receives the document (default: the whole workspace). Required for bot-restricted tokens.').optional(),
  })
  .refine((v) => v.url !== undefined || v.text !== undefined, { message: 'one of url or text is required', path: ['url'] });

export const AskBotInput = z.strictObject({
  message: text(1, CHAT_MESSAGE_MAX, "The visitor's question or message"),
  chatbotId: uuid('Bot to ask. Required for bot-restricted tokens; otherwise the workspace default bot answers.').optional(),
  sessionId: chars(1, SESSION_ID_MAX, 'Continue this conversation (the session_id of an earlier answer); omit to start a new one').optional(),
  language: z
    .string()
    .refine((s) => canonicalLanguage(s) !== null, { message: 'must be a language code such as en or ja-JP' })
    .meta({ description: "Reply language code (en-IN, ja-JP, ar-AE …); default: the bot's language, or the language the message is written in" })
    .optional(),
});

export const ListConversationsInput = z.strictObject({
  q: chars(0, 200, 'Search text matched against the messages').optional(),
  limit: z.int().min(1).max(200).meta({ description: 'At most this many sessions, newest first (default 50)' }).optional(),
  chatbotId: uuid('Only sessions of this bot').optional(),
});

export const GetConversationInput = z.strictObject({
  sessionId: chars(1, SESSION_ID_MAX, 'The session_id of a conversation (from list_conversations or ask_bot)'),
});

export const ListLeadsInput = z.strictObject({ chatbotId: chatbotId('list the leads of (default: every bot)') });

export const GetAnalyticsInput = z.strictObject({ chatbotId: chatbotId('summarise (default: the whole workspace)') });

export const ListBookingsInput = z.strictObject({
  status: z.enum(BOOKING_STATUSES).meta({ description: 'Only bookings in this state' }).optional(),
  chatbotId: uuid('Only bookings of this bot').optional(),
  limit: z.int().min(1).max(200).meta({ description: 'At most this many bookings, newest first (default 200)' }).optional(),
});

export const GetBookingInput = z.strictObject({ id: uuid('The booking id') });

export const UpdateBookingInput = z
  .strictObject({
    id: uuid('The booking id'),
    action: z.enum(BOOKING_ACTIONS).meta({
      description:
        'confirm or reject a pending booking; reschedule a pending or confirmed one to requestedSlot; cancel a pending or confirmed one',
    }),
    requestedSlot: z
      .string()
      .refine(isIsoWithOffset, { message: 'must be an ISO 8601 date-time with a UTC offset, e.g. 2027-03-01T10:00:00+01:00' })
      .meta({ format: 'date-time', description: 'New slot, ISO 8601 with a UTC offset; required when action is reschedule' })
      .optional(),
    rejectionComment: chars(0, BOOKING_COMMENT_MAX, 'Reason given to the visitor when rejecting (included in the e-mail)').optional(),
    cancelComment: chars(0, BOOKING_COMMENT_MAX, 'Reason given to the visitor when cancelling (included in the e-mail)').optional(),
  })
  .refine((v) => v.action !== 'reschedule' || v.requestedSlot !== undefined, {
    message: 'required when action is reschedule',
    path: ['requestedSlot'],
  });
