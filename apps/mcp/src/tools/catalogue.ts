import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { BotAccess, BotAccessDeclaration } from '@sa/bot-access';
import type { CallerContext, ChatRequest, Scope } from '@sa/contracts';
import type { RpcClient } from '@sa/messaging';
import * as input from './inputs';
import type { ArgsOf, ToolInput } from './inputs';
import * as render from './render';
import * as view from './views';

/** What a tool runs with: the verified caller, NATS, and the chat-turn runner for ask_bot. */
export interface ToolEnv {
  caller: CallerContext;
  rpc: RpcClient;
  askBot(args: ChatRequest): Promise<view.AskBotAnswer>;
}

export interface ToolDef<I extends ToolInput = ToolInput, O extends object = Record<string, unknown>> {
  name: string;
  title: string;
  description: string;
  /** The scope of the REST twin (spec part 4); a token without it neither sees nor may call the tool. */
  scope: Scope;
  /** What the tool does with bots (libs/bot-access); the tool server enforces it on the validated arguments. */
  bots: BotAccessDeclaration;
  /** The contract class of the REST twin's request: the input schema and the validation of the arguments. */
  input: I;
  output: z.ZodType<O>;
  annotations: ToolAnnotations;
  run(args: ArgsOf<I>, env: ToolEnv): Promise<O>;
  text(result: O, args: ArgsOf<I>): string;
}

const tool = <I extends ToolInput, O extends object>(def: ToolDef<I, O>): ToolDef => def as unknown as ToolDef;
const dataOf = <T extends z.ZodType>(item: T) => z.object({ data: item });
const read: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

/** The tools that take a bot name it in their chatbotId argument. */
const mustName: BotAccessDeclaration = { mode: BotAccess.MustName, from: 'argument' };
const mayName: BotAccessDeclaration = { mode: BotAccess.MayName, from: 'argument' };
const ofResource: BotAccessDeclaration = { mode: BotAccess.OfResource };

/**
 * The eleven tools of spec part 1. Each calls the NATS contract of its REST twin with the same
 * caller context, scope and bot-access mode, and returns the REST response's data as structured
 * content ({data: …}) plus a readable rendering.
 */
export const TOOLS: ToolDef[] = [
  tool({
    name: 'list_bots',
    title: 'List bots',
    description: "Lists the workspace's support bots (id, name, language, slot kind, creation time). Use a bot's id as chatbotId in the other tools.",
    scope: 'bots:read',
    bots: { mode: BotAccess.MayName },
    input: input.NoInput,
    output: dataOf(z.array(view.BotSchema)),
    annotations: read,
    run: async (_args, { rpc, caller }) => ({ data: await rpc.send('bots.bot.list', {}, caller) }),
    text: (r) => render.renderBots(r.data),
  }),
  tool({
    name: 'list_knowledge',
    title: 'List knowledge-base documents',
    description: 'Lists knowledge-base documents with their processing status (queued, processing, ready, failed), source and chunk count.',
    scope: 'kb:read',
    bots: mustName,
    input: input.ListKnowledgeInput,
    output: dataOf(z.array(view.KbDocumentSchema)),
    annotations: read,
    run: async (args, { rpc, caller }) => ({ data: await rpc.send('knowledge.document.list', args, caller) }),
    text: (r) => render.renderDocuments(r.data),
  }),
  tool({
    name: 'add_knowledge',
    title: 'Add knowledge',
    description:
      "Adds a document to the knowledge base from a web page (url) or raw text, for one bot (chatbotId) or the whole workspace. The document is queued and indexed in the background: check list_knowledge until its status is ready. Counts toward the bot's page quota.",
    scope: 'kb:write',
    bots: mustName,
    input: input.AddKnowledgeInput,
    output: dataOf(view.KbIngestAcceptedSchema),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: async (args, { rpc, caller }) => ({ data: await rpc.send('knowledge.document.ingest', args, caller) }),
    text: (r, args) => `Queued "${args.title}" as document ${r.data.id} (status ${r.data.status}). It is searchable once list_knowledge shows it as ready.`,
  }),
  tool({
    name: 'ask_bot',
    title: 'Ask a bot',
    description:
      "Sends a message to a support bot and returns its whole answer with the knowledge-base URLs it drew on. Counts toward the workspace's monthly message quota and is saved as a conversation; pass the returned session_id as sessionId to continue it. With a progressToken the answer also streams as progress notifications.",
    scope: 'chat:invoke',
    bots: mustName,
    input: input.AskBotInput,
    output: view.AskBotAnswerSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: (args, env) => env.askBot(args),
    text: (r) =>
      [
        r.answer,
        r.source_urls.length ? `\nSources:\n${r.source_urls.map((u) => `- ${u}`).join('\n')}` : '',
        `\n(session ${r.session_id}${r.unanswered ? '; the knowledge base had no answer' : ''})`,
      ].join(''),
  }),
  tool({
    name: 'list_conversations',
    title: 'List conversations',
    description: 'Lists chat sessions, newest first, with message counts and a preview; q searches the messages. Read one with get_conversation.',
    scope: 'conversations:read',
    bots: mayName,
    input: input.ListConversationsInput,
    output: dataOf(z.array(view.ConversationSchema)),
    annotations: read,
    run: async (args, { rpc, caller }) => ({ data: await rpc.send('chat.conversation.list', args, caller) }),
    text: (r) => render.renderConversations(r.data),
  }),
  tool({
    name: 'get_conversation',
    title: 'Get a conversation',
    description: 'Returns every message of one chat session in order (visitor and bot, with the sources of each answer). An unknown session gives an empty list.',
    scope: 'conversations:read',
    bots: ofResource,
    input: input.GetConversationInput,
    output: dataOf(z.array(view.ChatMessageSchema)),
    annotations: read,
    run: async (args, { rpc, caller }) => ({ data: await rpc.send('chat.conversation.messages', args, caller) }),
    text: (r, args) => render.renderMessages(args.sessionId, r.data),
  }),
  tool({
    name: 'list_leads',
    title: 'List leads',
    description: 'Lists up to 500 intent-scored leads, newest first: contact details, intent summary, score and band (hot, warm, cold), status.',
    scope: 'leads:read',
    bots: mustName,
    input: input.ListLeadsInput,
    output: dataOf(z.array(view.LeadSchema)),
    annotations: read,
    run: async (args, { rpc, caller }) => ({ data: await rpc.send('leads.lead.list', args, caller) }),
    text: (r) => render.renderLeads(r.data),
  }),
  tool({
    name: 'get_analytics',
    title: 'Get analytics',
    description: 'Summarises the last 30 days: messages per day, top questions, unanswered rate, feedback and sessions.',
    scope: 'analytics:read',
    bots: mustName,
    input: input.GetAnalyticsInput,
    output: dataOf(view.AnalyticsSchema),
    annotations: read,
    run: async (args, { rpc, caller }) => ({ data: await rpc.send('chat.analytics.summary', args, caller) }),
    text: (r) => render.renderAnalytics(r.data),
  }),
  tool({
    name: 'list_bookings',
    title: 'List bookings',
    description: 'Lists appointment bookings made by visitors, newest first, optionally only one status (pending, confirmed, rejected, cancelled) or bot.',
    scope: 'bookings:read',
    bots: mayName,
    input: input.ListBookingsInput,
    output: dataOf(z.array(view.BookingSchema)),
    annotations: read,
    run: async (args, { rpc, caller }) => ({ data: await rpc.send('bookings.booking.list', args, caller) }),
    text: (r) => render.renderBookings(r.data),
  }),
  tool({
    name: 'get_booking',
    title: 'Get a booking',
    description: 'Returns one booking: the visitor, the requested slot and its status.',
    scope: 'bookings:read',
    bots: ofResource,
    input: input.GetBookingInput,
    output: dataOf(view.BookingSchema),
    annotations: read,
    run: async (args, { rpc, caller }) => ({ data: await rpc.send('bookings.booking.get', args, caller) }),
    text: (r) => render.renderBooking(r.data),
  }),
  tool({
    name: 'update_booking',
    title: 'Update a booking',
    description:
      'Confirms, rejects, reschedules or cancels a booking; the visitor is e-mailed. confirm and reject apply to pending bookings only; reschedule (with requestedSlot) and cancel to pending or confirmed ones. Fails with a conflict when the slot is taken, the booking was already decided, or it is no longer active.',
    scope: 'bookings:write',
    bots: ofResource,
    input: input.UpdateBookingInput,
    output: dataOf(view.BookingSchema),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    run: async (args, { rpc, caller }) => ({ data: await rpc.send('bookings.booking.update', args, caller) }),
    text: (r, args) => `Done: ${args.action}.\n${render.renderBooking(r.data)}`,
  }),
];
