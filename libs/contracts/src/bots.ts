import { IsIn, IsISO8601, IsOptional, IsString, IsUUID } from 'class-validator';
import { CharLength, IsLanguageTag, NotBlank } from './validation';
import { ENTERPRISE_TIERS, EnterpriseTier, SLOT_KINDS, SlotKind } from './plans';
import { Doc } from './schema-docs';

export const BOT_NAME_MAX = 30;

export const LANGUAGE_DESCRIPTION = 'Language code such as a locale tag (BCP 47), for example `en` or `ja-JP`.';

/** Body of POST /v1/bots (spec part 4) and request of bots.bot.create. */
@Doc({ description: 'Body of POST /bots. Unknown members are rejected (400).' })
export class CreateBotRequest {
  @Doc(`1 to ${BOT_NAME_MAX} characters (Unicode code points). This implementation also rejects a name of only white space.`)
  @IsString()
  @CharLength(1, BOT_NAME_MAX)
  @NotBlank()
  name: string;

  @Doc(LANGUAGE_DESCRIPTION) @IsOptional() @IsString() @IsLanguageTag() language?: string;

  @Doc('Required for enterprise workspaces, which must have an available slot in that tier (otherwise 403).')
  @IsOptional()
  @IsIn(ENTERPRISE_TIERS)
  enterprise_plan_tier?: EnterpriseTier;
}

export class ListBotsRequest {}

/** Bot list item, spec part 2. */
@Doc({ name: 'Bot', description: 'A bot as listed by GET /bots.' })
export class BotView {
  @IsUUID() id: string;
  @IsString() @CharLength(1, BOT_NAME_MAX) name: string;
  @IsIn(SLOT_KINDS) slot_kind: SlotKind;
  @Doc(LANGUAGE_DESCRIPTION) @IsString() language: string;
  @IsISO8601() created_at: string;
}

/** CreatedBot, spec part 2. */
@Doc({ name: 'CreatedBot', description: 'The bot returned by POST /bots.' })
export class CreatedBotView {
  @IsUUID() id: string;
  @IsString() name: string;
  @Doc(LANGUAGE_DESCRIPTION) @IsString() language: string;
  @IsISO8601() created_at: string;
}

/** Body of PATCH /api/workspaces/{id}/bots/{botId} (console, issue 19): members left out stay as they are. */
@Doc({ name: 'UpdateBot', description: 'Members left out stay as they are. A name already used by another bot of the workspace gives 409 with `suggested_name`.' })
export class UpdateBotBody {
  @Doc(`1 to ${BOT_NAME_MAX} characters (Unicode code points), not only white space.`)
  @IsOptional()
  @IsString()
  @CharLength(1, BOT_NAME_MAX)
  @NotBlank()
  name?: string;

  @Doc(`The bot's default reply language. ${LANGUAGE_DESCRIPTION}`) @IsOptional() @IsString() @IsLanguageTag() language?: string;
}

/** bots.bot.update (issue 19): rename a bot or change its default reply language. */
export class UpdateBotRequest extends UpdateBotBody {
  @IsUUID() botId: string;
}

/** A bot as the console's Bots page lists it (a superset of BotOption). */
@Doc({ name: 'ConsoleBot', description: "A bot of the workspace (its name is user text: render it as text). `language` is the bot's default reply language." })
export class ConsoleBotView {
  @IsUUID() id: string;
  @IsString() name: string;
  @Doc(LANGUAGE_DESCRIPTION) @IsString() language: string;
  @IsIn(SLOT_KINDS) slot_kind: SlotKind;
  @IsISO8601() created_at: string;
}
