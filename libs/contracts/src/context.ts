import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsDefined, IsIn, IsInt, IsObject, IsOptional, IsString, IsUUID, MaxLength, Min, ValidateNested } from 'class-validator';
import { PLANS, Plan, TierSlots } from './plans';
import { SCOPES, Scope } from './scopes';

/** What the caller's workspace may use, resolved by the gateway from its plan and contract. */
export class Entitlements {
  @IsIn(PLANS) plan: Plan;
  @IsInt() @Min(0) botSlots: number;
  @IsObject() tierSlots: TierSlots;
  @IsInt() @Min(0) messagesPerMonth: number;
  @IsInt() @Min(0) pagesPerBot: number;
  /** Widget chat messages each bot may answer per calendar month (UTC), apart from messagesPerMonth. */
  @IsInt() @Min(0) widgetMessagesPerBotPerMonth: number;
  @IsBoolean() webhooks: boolean;
}

/**
 * The caller identity that travels with every request over NATS. Built by the gateway (or the
 * MCP server) from the verified token; never taken from a public request body.
 */
export class CallerContext {
  @IsUUID() tenantId: string;
  /** The API token used, or null for public widget callers. */
  @IsOptional() @IsUUID() tokenId: string | null;
  @IsArray() @IsIn(SCOPES, { each: true }) scopes: Scope[];
  /** Bot ids the token is limited to; null when the token may use every bot of the workspace. */
  @IsOptional() @IsArray() @IsUUID('all', { each: true }) botIds: string[] | null;
  @IsString() @MaxLength(128) requestId: string;
  @IsDefined() @ValidateNested() @Type(() => Entitlements) entitlements: Entitlements;
}

/** The message every RPC carries: caller context plus the request. */
export interface Envelope<T> {
  ctx?: CallerContext;
  data: T;
}
