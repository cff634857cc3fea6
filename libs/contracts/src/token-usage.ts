import { IsArray, IsInt, IsISO8601, IsOptional, IsUUID, Max, Min } from 'class-validator';
import { ONLY_THIS_BOT } from './knowledge';
import { Doc, Nested, Nullable } from './schema-docs';
import { IsCalendarDate } from './validation';

/*
 * Token usage (issue 32, item 5): the prompt and completion tokens of each answer, as the model's
 * provider reported them, summed per bot and day for the console's Analytics page; and an optional
 * monthly token budget per workspace, past which chat answers 402 `quota_exhausted` like the
 * message quota.
 */

export const TOKEN_USAGE_DAYS = 30;
/** The largest budget accepted: a trillion tokens (far beyond any real month). */
export const TOKEN_BUDGET_MAX = 1_000_000_000_000;

/** chat.tokens.usage. */
export class TokenUsageRequest {
  @Doc(ONLY_THIS_BOT) @IsOptional() @IsUUID() chatbotId?: string;
}

@Doc({ name: 'TokenUsageDay', description: "One bot's tokens on one day (UTC), as the model's provider reported them." })
export class TokenUsageDayView {
  @Doc('YYYY-MM-DD (UTC).') @IsCalendarDate() day: string;
  @Doc('The bot; null: answers of no bot (a workspace without bots).') @Nullable() @IsUUID() chatbot_id: string | null;
  @IsInt() prompt_tokens: number;
  @IsInt() completion_tokens: number;
  @Doc('Answers on that day that carried a usage report.') @IsInt() answers: number;
}

@Doc({ name: 'TokenBudget', description: "The workspace's monthly token budget and this month's use (UTC calendar month)." })
export class TokenBudgetView {
  @Doc('Prompt plus completion tokens a month; null: no budget.') @Nullable() @IsInt() monthly_tokens: number | null;
  @Doc("Tokens counted this month (every bot and channel, the playground aside).") @IsInt() used_this_month: number;
  @IsISO8601() month_start: string;
}

@Doc({ name: 'TokenUsage', description: `Tokens per bot and day over the last ${TOKEN_USAGE_DAYS} days (days without answers left out), and the monthly budget.` })
export class TokenUsageView {
  @IsArray() @Nested(() => TokenUsageDayView) days: TokenUsageDayView[];
  @Nested(() => TokenBudgetView) budget: TokenBudgetView;
}

/** Body of the console's PUT …/token-budget; request of chat.tokens.budget.set. */
@Doc({ name: 'TokenBudgetUpdate', description: 'The monthly token budget. Unknown members are rejected (400).' })
export class UpdateTokenBudgetBody {
  @Doc(`Prompt plus completion tokens a month, 1 to ${TOKEN_BUDGET_MAX}; null removes the budget.`)
  @Nullable()
  @IsInt()
  @Min(1)
  @Max(TOKEN_BUDGET_MAX)
  monthly_tokens: number | null;
}
