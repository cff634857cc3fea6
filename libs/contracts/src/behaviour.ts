import { ArrayMaxSize, IsArray, IsIn, IsISO8601, IsNumber, IsOptional, IsString, IsUUID, Max, Min } from 'class-validator';
import { BotModelChoice, MODEL_TEMPERATURE_MAX } from './models';
import { Doc, Nullable } from './schema-docs';
import { CharLength, NotBlank } from './validation';

/**
 * A bot's behaviour (issue 32): what its owner tells it. Stored by the bots service, read by chat
 * with the bot on every turn (bots.bot.describe), and by the widget (the starter questions).
 */
export const BEHAVIOUR_INSTRUCTIONS_MAX = 4000;
export const BEHAVIOUR_FALLBACK_MAX = 1000;
export const STARTER_QUESTIONS_MAX = 4;
export const STARTER_QUESTION_MAX = 150;
export const ANSWER_LENGTHS = ['short', 'normal', 'detailed'] as const;
export type AnswerLength = (typeof ANSWER_LENGTHS)[number];

/** What chat needs of a bot's behaviour for a turn. */
export interface BehaviourSettings {
  /** Empty: none. Goes into the system prompt after the grounding rules. */
  instructions: string;
  /** Null: the translated default phrase. */
  fallback_reply: string | null;
  answer_length: AnswerLength;
  starter_questions: string[];
}

export const DEFAULT_BEHAVIOUR: Readonly<BehaviourSettings & BotModelChoice> = Object.freeze({ instructions: '', fallback_reply: null, answer_length: 'normal', starter_questions: [], model_connection_id: null, temperature: null });

@Doc({ name: 'BotBehaviour', description: "A bot's behaviour: its instructions, fallback reply, answer length and starter questions. All of it is user text: render it as text." })
export class BotBehaviourView implements BehaviourSettings, BotModelChoice {
  @IsUUID() chatbot_id: string;
  @Doc(`Up to ${BEHAVIOUR_INSTRUCTIONS_MAX} characters; empty: none. Added to the system prompt after the grounding rules, which they cannot remove. Needs a chat model.`)
  @IsString()
  instructions: string;
  @Doc('What the bot says when the knowledge has nothing; null: the default phrase, translated into the reply language.') @Nullable() @IsString() fallback_reply: string | null;
  @Doc('How long the answers are. Needs a chat model.') @IsIn(ANSWER_LENGTHS) answer_length: AnswerLength;
  @Doc(`Up to ${STARTER_QUESTIONS_MAX} questions the widget offers as buttons before the first message.`) @IsArray() @IsString({ each: true }) starter_questions: string[];
  @Doc("The workspace's model connection the bot answers through; null: the installation's chat model.") @Nullable() @IsUUID() model_connection_id: string | null;
  @Doc(`0 to ${MODEL_TEMPERATURE_MAX}; null: the installation's default.`) @Nullable() @IsNumber() temperature: number | null;
  @Doc('Last change; null: never changed (defaults).') @Nullable() @IsISO8601() updated_at: string | null;
}

/** Body of the console's PATCH …/bots/{botId}/behaviour; with botId, request of bots.behaviour.update. */
@Doc({ name: 'BotBehaviourUpdate', description: 'A change of the behaviour; members left out stay as they are. Unknown members are rejected (400).' })
export class UpdateBotBehaviourBody {
  @Doc(`0 to ${BEHAVIOUR_INSTRUCTIONS_MAX} characters; empty removes them.`) @IsOptional() @IsString() @CharLength(0, BEHAVIOUR_INSTRUCTIONS_MAX) instructions?: string;
  @Doc(`1 to ${BEHAVIOUR_FALLBACK_MAX} characters, not only white space; null: the default phrase.`)
  @IsOptional()
  @Nullable()
  @IsString()
  @CharLength(1, BEHAVIOUR_FALLBACK_MAX)
  @NotBlank()
  fallback_reply?: string | null;
  @IsOptional() @IsIn(ANSWER_LENGTHS) answer_length?: AnswerLength;
  @Doc(`At most ${STARTER_QUESTIONS_MAX}, each 1 to ${STARTER_QUESTION_MAX} characters, not only white space; stored trimmed, without duplicates.`)
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(STARTER_QUESTIONS_MAX)
  @IsString({ each: true })
  @CharLength(1, STARTER_QUESTION_MAX, { each: true })
  @NotBlank({ each: true })
  starter_questions?: string[];
  @Doc("A model connection of the workspace (Models page); null: the installation's chat model.") @IsOptional() @Nullable() @IsUUID() model_connection_id?: string | null;
  @Doc(`0 to ${MODEL_TEMPERATURE_MAX}; null: the installation's default.`)
  @IsOptional()
  @Nullable()
  @IsNumber({ allowNaN: false, allowInfinity: false, maxDecimalPlaces: 2 })
  @Min(0)
  @Max(MODEL_TEMPERATURE_MAX)
  temperature?: number | null;
}

export class UpdateBotBehaviourRequest extends UpdateBotBehaviourBody {
  @IsUUID() botId: string;
}

/** bots.behaviour.get. */
export class BotBehaviourRequest {
  @IsUUID() botId: string;
}
