import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString } from 'class-validator';
import { type AnswerLength, ANSWER_LENGTHS, BEHAVIOUR_FALLBACK_MAX, BEHAVIOUR_INSTRUCTIONS_MAX } from './behaviour';
import type { ActionFrame } from './chat';
import type { MessagePassageView } from './records-console';
import { Doc, Nested, Nullable } from './schema-docs';
import { CharLength, IsLanguageTag, NotBlank } from './validation';

/**
 * The playground (issue 32, "Try it"): an owner or admin chats with a bot from its console page.
 * Its turns are answered like any other (retrieval, the bot's behaviour, its model) but stored
 * nowhere and counted nowhere: no conversation, no analytics, no lead, no quota, no webhook. The
 * page keeps the conversation and sends it back with each message.
 */
export const PLAYGROUND_HISTORY_MAX = 20;
export const PLAYGROUND_MESSAGE_MAX = 2000;
/** A reply kept in the page's history may be longer than a question. */
export const PLAYGROUND_HISTORY_TEXT_MAX = 8000;

@Doc({ name: 'PlaygroundHistoryMessage', description: 'One earlier message of the playground conversation, as the page kept it.' })
export class PlaygroundHistoryMessage {
  @IsIn(['user', 'assistant']) role: 'user' | 'assistant';
  @IsString() @CharLength(1, PLAYGROUND_HISTORY_TEXT_MAX) content: string;
}

/** Behaviour to try before it is saved: members given replace the saved ones for this turn only. */
@Doc({ name: 'PlaygroundBehaviour', description: 'Unsaved behaviour to try: members given replace the saved ones for this turn only; nothing is saved.' })
export class PlaygroundBehaviour {
  @IsOptional() @IsString() @CharLength(0, BEHAVIOUR_INSTRUCTIONS_MAX) instructions?: string;
  @IsOptional() @Nullable() @IsString() @CharLength(1, BEHAVIOUR_FALLBACK_MAX) @NotBlank() fallback_reply?: string | null;
  @IsOptional() @IsIn(ANSWER_LENGTHS) answer_length?: AnswerLength;
}

/** Body of the console's POST …/bots/{botId}/playground. */
@Doc({ name: 'PlaygroundTurn', description: 'One message to the bot in the playground. Unknown members are rejected (400).' })
export class PlaygroundTurnBody {
  @Doc("The owner's message, as a visitor would write it.") @IsString() @CharLength(1, PLAYGROUND_MESSAGE_MAX) @NotBlank() message: string;
  @Doc(`The conversation so far, oldest first (at most ${PLAYGROUND_HISTORY_MAX} messages).`)
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(PLAYGROUND_HISTORY_MAX)
  @Nested(() => PlaygroundHistoryMessage)
  history?: PlaygroundHistoryMessage[];
  @IsOptional() @Nested(() => PlaygroundBehaviour) behaviour?: PlaygroundBehaviour;
  @Doc('Reply language; as in POST /v1/chat.') @IsOptional() @IsString() @IsLanguageTag() language?: string;
}

/** What chat.turn.start carries for a playground turn (the console sets it; nothing else does). */
export class PlaygroundOptions {
  @IsArray() @ArrayMaxSize(PLAYGROUND_HISTORY_MAX) @Nested(() => PlaygroundHistoryMessage) history: PlaygroundHistoryMessage[];
  @IsOptional() @Nested(() => PlaygroundBehaviour) behaviour?: PlaygroundBehaviour;
}

/** Under each playground reply: why the bot answered as it did. */
export interface TurnDiagnostics {
  /** The passages the bot was given, best first. */
  passages: MessagePassageView[];
  /** The reply language, and the language detected in the message (null: none detected). */
  language: string;
  detected_language: string | null;
  /** Whether the answer counts as unanswered (the knowledge had nothing). */
  unanswered: boolean;
  /** Whether the bot handed off to a person (the visitor asked for one, or the model said so). */
  handoff: boolean;
  /** The model that wrote the answer ("extractive" without one). */
  model: string;
  /** From the provider's usage report; null when it sent none (or without a model). */
  tokens: { prompt: number; completion: number } | null;
  timings: { retrieval_ms: number; first_text_ms: number | null; total_ms: number };
}

/** A frame of the playground's event stream (`data: <json>`), in order: deltas and actions (issue 34), then one end or error. */
export type PlaygroundFrame = { type: 'delta'; text: string } | { type: 'action'; action: ActionFrame } | { type: 'end'; diagnostics: TurnDiagnostics } | { type: 'error'; code: string; message: string };
