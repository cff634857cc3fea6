import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsISO8601, IsOptional, IsString, IsUUID, Max, Min } from 'class-validator';
import { CHAT_CHANNELS, type ChatChannel } from './chat';
import { ONLY_THIS_BOT } from './knowledge';
import { Doc, Nested } from './schema-docs';

/*
 * Question insights of the console's Analytics page (issue 19): the most asked questions and the
 * questions the bot could not answer, over a window of days.
 */

export const QUESTIONS_DAYS_DEFAULT = 30;
export const QUESTIONS_DAYS_MAX = 365;

/** chat.analytics.questions. */
export class AnalyticsQuestionsRequest {
  @Doc(ONLY_THIS_BOT) @IsOptional() @IsUUID() chatbotId?: string;
  @Doc(`Window length in days, today (UTC) included: 1 to ${QUESTIONS_DAYS_MAX}, default ${QUESTIONS_DAYS_DEFAULT}.`)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(QUESTIONS_DAYS_MAX)
  days?: number;
}

/** Query of the console's GET …/analytics and …/analytics/questions, …/actions, …/channels. */
export class ConsoleAnalyticsQuery {
  @Doc('Only this bot (a bot of the workspace; another id gives 404).') @IsOptional() @IsUUID('all') bot?: string;
  @Doc(`Window length in days for the questions, the actions and the channels, 1 to ${QUESTIONS_DAYS_MAX}; default ${QUESTIONS_DAYS_DEFAULT}. The summary always covers the last 30 days.`)
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(QUESTIONS_DAYS_MAX)
  days?: number;
}

@Doc({ name: 'AskedQuestion', description: 'A question as visitors asked it: messages with the same wording (case, punctuation and spacing aside) count as one.' })
export class AskedQuestionView {
  @Doc('The latest wording (user text: render it as text).') @IsString() question: string;
  @Doc('How many times it was asked in the window.') @IsInt() times: number;
  @IsISO8601() last_asked_at: string;
}

@Doc({
  name: 'AnalyticsQuestions',
  description:
    'The most asked questions, and the unanswered ones: a question is unanswered when the reply to its latest asking in the window was ' +
    'marked unanswered (the rule of the unanswered rate: no knowledge passage was relevant). Once the bot answers it, it leaves the list.',
})
export class AnalyticsQuestionsView {
  @IsInt() days: number;
  @IsArray() @Nested(() => AskedQuestionView) top: AskedQuestionView[];
  @IsArray() @Nested(() => AskedQuestionView) unanswered: AskedQuestionView[];
}

/**
 * chat.analytics.channels (issue 35, "Analytics splits by channel"): the console's Analytics page
 * only; GET /v1/analytics (AnalyticsView, the spec's shape) stays as it is.
 */
export class AnalyticsChannelsRequest {
  @Doc(ONLY_THIS_BOT) @IsOptional() @IsUUID() chatbotId?: string;
  @Doc(`Window length in days, today (UTC) included: 1 to ${QUESTIONS_DAYS_MAX}, default ${QUESTIONS_DAYS_DEFAULT}.`)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(QUESTIONS_DAYS_MAX)
  days?: number;
}

@Doc({ name: 'ChannelCount', description: 'The conversations and messages of one channel in the window.' })
export class ChannelCountView {
  @Doc('Where the conversations came from.') @IsIn(CHAT_CHANNELS) channel: ChatChannel;
  @Doc("Conversations (sessions) of this channel active in the window (a session's channel is its first turn's), as the summary's sessions count them.")
  @IsInt()
  conversations: number;
  @Doc('Visitor messages sent through this channel in the window.') @IsInt() messages: number;
  @Doc('Bot replies through this channel in the window that were marked unanswered (no knowledge passage was relevant).') @IsInt() unanswered: number;
}

@Doc({
  name: 'AnalyticsChannels',
  description: 'Conversations and visitor messages per channel over the window, the busiest channel first; a channel with neither in the window is left out. Playground and evaluation turns are stored nowhere, so they count nowhere.',
})
export class AnalyticsChannelsView {
  @IsInt() days: number;
  @IsArray() @Nested(() => ChannelCountView) channels: ChannelCountView[];
}
