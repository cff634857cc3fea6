import { Type } from 'class-transformer';
import { IsArray, IsInt, IsISO8601, IsOptional, IsString, IsUUID, Max, Min } from 'class-validator';
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

/** Query of the console's GET …/analytics and …/analytics/questions. */
export class ConsoleAnalyticsQuery {
  @Doc('Only this bot (a bot of the workspace; another id gives 404).') @IsOptional() @IsUUID('all') bot?: string;
  @Doc(`Window length in days for the questions, 1 to ${QUESTIONS_DAYS_MAX}; default ${QUESTIONS_DAYS_DEFAULT}. The summary always covers the last 30 days.`)
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
