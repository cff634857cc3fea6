import { IsIn, IsOptional, IsString } from 'class-validator';
import { CharLength, IsLanguageTag, NotBlank } from './validation';
import { ENTERPRISE_TIERS, EnterpriseTier, SlotKind } from './plans';

export const BOT_NAME_MAX = 30;

/** Body of POST /v1/bots (spec part 4) and request of bots.bot.create. */
export class CreateBotRequest {
  @IsString() @CharLength(1, BOT_NAME_MAX) @NotBlank() name: string;
  @IsOptional() @IsString() @IsLanguageTag() language?: string;
  @IsOptional() @IsIn(ENTERPRISE_TIERS) enterprise_plan_tier?: EnterpriseTier;
}

export class ListBotsRequest {}

/** Bot list item, spec part 2. */
export interface BotView {
  id: string;
  name: string;
  slot_kind: SlotKind;
  language: string;
  created_at: string;
}

/** CreatedBot, spec part 2. */
export interface CreatedBotView {
  id: string;
  name: string;
  language: string;
  created_at: string;
}
