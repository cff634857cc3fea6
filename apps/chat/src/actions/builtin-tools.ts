import { performance } from 'node:perf_hooks';
import { validateActionInput } from '@sa/actions';
import type { ActionBuiltins, CallerContext, ChatChannel } from '@sa/contracts';
import { DomainError } from '@sa/errors';
import type { RpcClient } from '@sa/messaging';
import { baseLanguage } from '../answer/language';
import type { LoopTool, ToolOutcome } from './tool-loop';

/*
 * The built-in actions of a bot (issue 34, item 2), switched on per bot (bots.action-settings:
 * `builtins`), as tools of the loop. They are ours, not the owner's endpoints: each is a call of
 * one of our services with the same request the widget's own form makes, so the same rules apply
 * and the same events go out.
 *
 * - request_booking: bookings.booking.create, the widget's booking form (a `pending` booking,
 *   `booking.created`). The visitor confirms it first: it writes data on their behalf.
 * - capture_contact: leads.lead.capture-conversational (the lead form's rules, `captured_via:
 *   conversational`, `lead.created` the first time). The visitor confirms it first.
 * - handoff_to_person: no service call; the turn records a handoff of kind `detected`
 *   (`conversation.handoff`) through its own path once the turn is saved (onHandoff). No
 *   confirmation: it sends nothing anywhere and the visitor can always go on writing.
 *
 * The model's input is never passed on as it is: only the members named here are taken, and the
 * bot, the session and the channel are the conversation's. A refusal (invalid input, an unknown
 * bot, a service that does not answer) is an outcome with ok false and words the model can relay,
 * never an exception.
 */

export const BUILTIN_TOOL_NAMES = { booking: 'request_booking', lead: 'capture_contact', handoff: 'handoff_to_person' } as const;

export interface BuiltinContext {
  rpc: RpcClient;
  /** The turn's caller (a widget, an API token, the MCP server). */
  caller: CallerContext;
  chatbotId: string;
  sessionId: string;
  channel: ChatChannel;
  /** The reply's language (the status line's words). */
  language: string;
  /** The visitor asked for a person: the turn records the handoff (kind `detected`) when it is saved. */
  onHandoff(): void;
  /** The clock (tests); the booking tool tells the model today's date. */
  now?: () => Date;
}

/** What the widget's booking form sends (WidgetBookingBody, without sessionId: the conversation's). */
export const BOOKING_PARAMETERS: Record<string, unknown> = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200, description: "The visitor's name, as they gave it." },
    email: { type: 'string', format: 'email', minLength: 3, maxLength: 254, description: "The visitor's e-mail address, as they gave it." },
    phone: { type: 'string', minLength: 3, maxLength: 40, description: "The visitor's phone number, as they gave it." },
    requestedSlot: {
      type: 'string',
      format: 'date-time',
      description: 'The date and time the visitor asks for, ISO 8601 with a UTC offset, such as 2026-12-01T10:00:00+01:00. Leave it out when they named none.',
    },
    timeZone: { type: 'string', minLength: 1, maxLength: 64, description: "The visitor's IANA time zone, such as Europe/Paris, when they said it." },
    notes: { type: 'string', maxLength: 2000, description: 'What the appointment is about, in the visitor’s words.' },
  },
  required: ['name', 'email', 'phone'],
};

/** What the lead form accepts of a contact (ConversationalLeadRequest, without the conversation's own members). */
export const CONTACT_PARAMETERS: Record<string, unknown> = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200, description: "The visitor's name, as they gave it." },
    email: { type: 'string', format: 'email', minLength: 3, maxLength: 254, description: "The visitor's e-mail address. An e-mail or a phone is needed." },
    phone: { type: 'string', minLength: 3, maxLength: 40, description: "The visitor's phone number. An e-mail or a phone is needed." },
    company: { type: 'string', minLength: 1, maxLength: 200, description: "The visitor's company, when they named one." },
    message: { type: 'string', minLength: 1, maxLength: 2000, description: 'What the visitor wants to be contacted about, in their words.' },
  },
};

/** Nothing to fill: the conversation is what the person reads. */
export const HANDOFF_PARAMETERS: Record<string, unknown> = { type: 'object', properties: {} };

const BOOKING_MEMBERS = ['name', 'email', 'phone', 'requestedSlot', 'timeZone', 'notes'] as const;
const CONTACT_MEMBERS = ['name', 'email', 'phone', 'company', 'message'] as const;

/** Status lines in English; other languages get the loop's generic one in the reply's language (null). */
const LABELS_EN: Record<keyof ActionBuiltins, string> = { booking: 'Requesting your booking…', lead: 'Saving your contact details…', handoff: 'Asking a person to join…' };

/** The members named, when the model gave them (the schema check made them strings). */
function pick<K extends string>(input: Record<string, unknown>, members: readonly K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const m of members) if (typeof input[m] === 'string') out[m] = input[m] as string;
  return out;
}

const outcome = (started: number, ok: boolean, result: string, error: string | null, message: string): ToolOutcome => ({
  ok,
  status: null,
  duration_ms: Math.round(performance.now() - started),
  result,
  error,
  message,
});

/**
 * A failed call of one of our services as an outcome: the service's own validation problems are
 * the model's to fix with the visitor (invalid_input, with the problems); anything else is a
 * refusal in plain words, without internals.
 */
function failure(started: number, err: unknown, notDone: string): ToolOutcome {
  if (err instanceof DomainError && err.code === 'validation_failed') {
    const issues = Array.isArray(err.details['issues']) ? (err.details['issues'] as { message?: unknown }[]) : [];
    const problems = issues.map((i) => (typeof i.message === 'string' ? i.message : '')).filter(Boolean);
    return invalidOutcome(started, notDone, problems.length ? problems : [err.message]);
  }
  if (err instanceof DomainError && err.code === 'service_unavailable') {
    const text = `${notDone}: the service is not available right now. Tell the visitor to try again later.`;
    return outcome(started, false, text, 'unavailable', text);
  }
  const text = `${notDone}. Tell the visitor that it did not work.`;
  return outcome(started, false, text, err instanceof DomainError ? err.code : 'failed', text);
}

function invalidOutcome(started: number, notDone: string, problems: readonly string[]): ToolOutcome {
  const text = `${notDone}: ${problems.join('; ')}. Ask the visitor for what is missing or wrong, then try again.`;
  return outcome(started, false, text, 'invalid_input', text);
}

/** The model's input checked against the tool's schema: the refusal, or null when it fits. */
function invalid(started: number, schema: Record<string, unknown>, input: Record<string, unknown>, notDone: string): ToolOutcome | null {
  const checked = validateActionInput(schema, input);
  return checked.ok ? null : invalidOutcome(started, notDone, checked.errors);
}

/**
 * The conversation's caller limited to its bot: what the bookings and leads services accept for a
 * visitor of that bot (the widget's own caller already is; an API token or the MCP server may be
 * for every bot). It never gives more than the turn's caller had: a caller restricted to other
 * bots stays as it is, and the services refuse it.
 */
export function builtinCaller(caller: CallerContext, chatbotId: string): CallerContext {
  if (caller.botIds && !caller.botIds.includes(chatbotId)) return caller;
  return { ...caller, botIds: [chatbotId] };
}

/** The tools of the built-in actions switched on for the bot, in a fixed order. */
export function builtinTools(builtins: ActionBuiltins, ctx: BuiltinContext): LoopTool[] {
  const english = baseLanguage(ctx.language) === 'en';
  const label = (k: keyof ActionBuiltins) => (english ? LABELS_EN[k] : null);
  const caller = builtinCaller(ctx.caller, ctx.chatbotId);
  const tools: LoopTool[] = [];

  if (builtins.booking) {
    const today = (ctx.now?.() ?? new Date()).toISOString().slice(0, 10);
    tools.push({
      name: BUILTIN_TOOL_NAMES.booking,
      description:
        'Request an appointment for the visitor. Ask them for their name, e-mail and phone, and the date and time they want, first: never make any of them up. ' +
        `The booking is created pending: the team confirms or declines it later. Today is ${today} (UTC).`,
      source: 'builtin',
      label: label('booking'),
      parameters: BOOKING_PARAMETERS,
      confirm: true,
      verifiedOnly: false,
      run: async (input) => {
        const started = performance.now();
        const notDone = 'The booking was not requested';
        const bad = invalid(started, BOOKING_PARAMETERS, input, notDone);
        if (bad) return bad;
        const given = pick(input, BOOKING_MEMBERS);
        try {
          const booking = await ctx.rpc.send(
            'bookings.booking.create',
            { ...given, name: given.name!, email: given.email!, phone: given.phone!, chatbotId: ctx.chatbotId, sessionId: ctx.sessionId },
            caller,
          );
          const result = { booking_id: booking.id, status: booking.status, requested_slot: booking.requested_slot, time_zone: booking.time_zone };
          return outcome(started, true, JSON.stringify({ ...result, next: 'The team confirms or declines it; the visitor hears from them by e-mail.' }), null, 'The booking was requested');
        } catch (err) {
          return failure(started, err, notDone);
        }
      },
    });
  }

  if (builtins.lead) {
    tools.push({
      name: BUILTIN_TOOL_NAMES.lead,
      description:
        'Save the visitor’s contact details so the team can get back to them, when the visitor wants to be contacted. ' +
        'Only details the visitor gave in this conversation: never make any up. An e-mail or a phone is needed.',
      source: 'builtin',
      label: label('lead'),
      parameters: CONTACT_PARAMETERS,
      confirm: true,
      verifiedOnly: false,
      run: async (input) => {
        const started = performance.now();
        const notDone = 'The contact details were not saved';
        const bad = invalid(started, CONTACT_PARAMETERS, input, notDone);
        if (bad) return bad;
        try {
          const lead = await ctx.rpc.send(
            'leads.lead.capture-conversational',
            { ...pick(input, CONTACT_MEMBERS), chatbotId: ctx.chatbotId, sessionId: ctx.sessionId, channel: ctx.channel },
            caller,
          );
          return outcome(started, true, JSON.stringify({ saved: true, lead_id: lead.id, next: 'The team will get in touch.' }), null, 'The contact details were saved');
        } catch (err) {
          return failure(started, err, notDone);
        }
      },
    });
  }

  if (builtins.handoff) {
    tools.push({
      name: BUILTIN_TOOL_NAMES.handoff,
      description: 'Ask a person from the team to take over this conversation, when the visitor wants a person or you cannot help them. Then tell the visitor that a person will reply here.',
      source: 'builtin',
      label: label('handoff'),
      parameters: HANDOFF_PARAMETERS,
      confirm: false,
      verifiedOnly: false,
      run: async () => {
        const started = performance.now();
        ctx.onHandoff();
        return outcome(started, true, JSON.stringify({ handoff: 'requested', next: 'A person from the team will reply in this conversation.' }), null, 'A person was asked to join');
      },
    });
  }

  return tools;
}
