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
