import { IsArray, IsBoolean, IsIn, IsInt, IsISO8601, IsOptional, IsString, IsUUID, Max, Min } from 'class-validator';
import { CHAT_MESSAGE_MAX, SESSION_ID_MAX } from './chat';
import { CharLength, NotBlank } from './validation';
import { Type } from 'class-transformer';
import { BILLING_STATUSES, BillingStatus, PLANS, Plan } from './plans';
import { Doc, Nested, Nullable } from './schema-docs';
import { WorkspaceParams } from './console';
import { DELIVERIES_LIST_MAX, ROLES, Role } from './management';
import { WidgetSettingsView } from './widget';

/*
 * The console's workspace pages (apps/console, /api/workspaces/{workspaceId}): the workspace's
 * plan, live access and usage, its bots for pickers, and the path parameters of the token and
 * webhook routes. Tokens and webhooks themselves are the classes of management.ts.
 */

export const DELIVERIES_PAGE_DEFAULT = 50;

export class TokenParams extends WorkspaceParams {
  @IsUUID('all') tokenId: string;
}

export class WebhookParams extends WorkspaceParams {
  @IsUUID('all') webhookId: string;
}

/** Path parameters of the console's …/models/{connectionId} routes (issue 32). */
export class ModelConnectionParams extends WorkspaceParams {
  @IsUUID('all') connectionId: string;
}

export class DeliveryParams extends WebhookParams {
  @IsUUID('all') deliveryId: string;
}

export class DeliveriesQuery {
  @Doc(`1 to ${DELIVERIES_LIST_MAX}; default ${DELIVERIES_PAGE_DEFAULT}. Newest first.`) @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(DELIVERIES_LIST_MAX) limit?: number;
}

@Doc({ name: 'BotOption', description: 'A bot of the workspace, for pickers (its name is user text: render it as text).' })
export class BotOptionView {
  @IsUUID() id: string;
  @IsString() name: string;
}

export const LIVE_ACCESS_CODES = ['api_locked'] as const;

@Doc({ name: 'LiveAccess', description: 'Whether the workspace has live API access (spec part 5 rule 6); without it every API request fails with 402 `api_locked`.' })
export class LiveAccessView {
  @IsBoolean() ok: boolean;
  @Doc('`api_locked` when there is no live access.') @Nullable() @IsIn(LIVE_ACCESS_CODES) code: 'api_locked' | null;
  @Doc('Why the API is locked and what unlocks it; null when it is not.') @Nullable() @IsString() reason: string | null;
}

@Doc({ name: 'Quota', description: 'Use of one limit. `limit` null: no limit.' })
export class QuotaView {
  @IsInt() used: number;
  @Nullable() @IsInt() limit: number | null;
}

@Doc({ name: 'BotPages', description: 'Knowledge pages of one bot, as the pages-per-bot limit counts them.' })
export class BotPagesView {
  @IsUUID() bot_id: string;
  @IsString() name: string;
  @IsInt() pages: number;
}

@Doc({ name: 'PagesPerBot', description: 'The pages-per-bot limit and each bot\'s pages.' })
export class PagesPerBotView {
  @Nullable() @IsInt() limit: number | null;
  @IsArray() @Nested(() => BotPagesView) bots: BotPagesView[];
}

@Doc({ name: 'WorkspaceUsage', description: 'Usage against the quotas.' })
export class WorkspaceUsageView {
  @Doc('Messages answered this calendar month (UTC) through the API and agents (widget messages have a budget per bot).') @Nested(() => QuotaView) messages_this_month: QuotaView;
  @Doc('Bots using a slot of the plan (or, on an enterprise contract, a tier slot).') @Nested(() => QuotaView) bot_slots: QuotaView;
  @Nested(() => PagesPerBotView) pages_per_bot: PagesPerBotView;
}

@Doc({ name: 'Workspace', description: 'A workspace as its people see it: plan, live-access state and usage (read-only; billing is out of scope).' })
export class WorkspaceView {
  @IsUUID() id: string;
  @IsString() name: string;
  @Doc('The caller\'s role.') @IsIn(ROLES) role: Role;
  @IsIn(PLANS) plan: Plan;
  @IsIn(BILLING_STATUSES) billing_status: BillingStatus;
  @Nullable() @IsISO8601() trial_ends_at: string | null;
  @Nested(() => LiveAccessView) live_access: LiveAccessView;
  @Nested(() => WorkspaceUsageView) usage: WorkspaceUsageView;
}

// ---- The visitor widget of a bot (issue 18): GET/PATCH …/bots/{botId}/widget, POST …/widget/secret ----

export class BotParams extends WorkspaceParams {
  @IsUUID('all') botId: string;
}

@Doc({ name: 'WidgetInstall', description: 'How a website embeds the bot: the script tag to paste before </body>.' })
export class WidgetInstallView {
  @Doc('The widget script, `<GATEWAY_PUBLIC_URL>/widget/v1/embed.js`: always the build the gateway serves now.') @IsString() script_url: string;
  @Doc('The tag to paste: `<script src="…/widget/v1/embed.js" data-bot-id="…" async></script>`. It follows upgrades of the widget (the file is cached for an hour).')
  @IsString()
  snippet: string;
  @Doc('Subresource Integrity of the script now served (`sha384-…`); null when the server has no built widget.')
  @Nullable()
  @IsString()
  integrity: string | null;
  @Doc('This build under its own name, `…/widget/v1/embed.<version>.js` (cached for a year, never changed); null when the server has no built widget.')
  @Nullable()
  @IsString()
  pinned_script_url: string | null;
  @Doc(
    'The tag pinned to this build and checked by the browser: `<script src="…/embed.<version>.js" data-bot-id="…" integrity="…" crossorigin="anonymous" async></script>`. ' +
      'After the widget on this server is upgraded, that file is gone: copy the new pinned snippet. Null when the server has no built widget.',
  )
  @Nullable()
  @IsString()
  pinned_snippet: string | null;
}

@Doc({ name: 'ConsoleWidget', description: "A bot's widget settings with its install snippet." })
export class ConsoleWidgetView extends WidgetSettingsView {
  @Nested(() => WidgetInstallView) install: WidgetInstallView;
}


/** A question the owner asks a bot from the console (first-run guide; channel `console`). */
export class TryBotRequest {
  @Doc('The question.') @IsString() @CharLength(1, CHAT_MESSAGE_MAX) @NotBlank() message: string;
  @Doc('Continue this conversation (the session_id of an earlier answer).') @IsOptional() @IsString() @CharLength(1, SESSION_ID_MAX) session_id?: string;
}

@Doc({ name: 'TryBotAnswer', description: "The bot's whole answer to a question asked from the console." })
export class TryBotAnswerView {
  @IsString() answer: string;
  @Doc('The conversation (stored like any other, channel `console`).') @IsString() session_id: string;
  @Doc('The knowledge-base URLs the answer drew on.') @IsArray() @IsString({ each: true }) source_urls: string[];
  @Doc('True when the knowledge base had no answer.') @IsBoolean() unanswered: boolean;
}
