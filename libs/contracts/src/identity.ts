import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsISO8601, IsString, IsUUID, Matches, ValidateNested } from 'class-validator';
import { PLANS } from './plans';
import { CharLength } from './validation';
import type { BillingStatus, Plan, TierSlots } from './plans';
import type { Scope } from './scopes';

/** The longest workspace name the console's setup accepts. */
export const WORKSPACE_NAME_MAX = 100;

/*
 * Identity (workspaces and API tokens, schema `identity`) is owned by the gateway. Other processes
 * that need it (the MCP server, the webhook dispatcher) ask the gateway over NATS and cache the
 * answers; the gateway announces every change on IDENTITY_CHANGES_SUBJECT so those caches drop
 * what changed at once. These operations carry no caller context: they are what a caller context
 * is built from.
 */

/**
 * Core NATS subject (no reply, no JetStream) on which every gateway replica relays identity changes.
 * `reset`: changes may have been missed (a gateway (re)connected to PostgreSQL), drop everything.
 */
export const IDENTITY_CHANGES_SUBJECT = 'identity.changes';
export type IdentityChangeMessage = { kind: 'token' | 'workspace'; id: string } | { kind: 'reset' };

/** Largest batch of token uses one identity.token.touch carries. */
export const TOKEN_USES_MAX = 1000;

/** identity.token.verify: the token whose secret has this SHA-256 (lowercase hex), and its workspace. */
export class VerifyTokenRequest {
  @Matches(/^[0-9a-f]{64}$/, { message: 'tokenHash must be a lowercase hex SHA-256' }) tokenHash: string;
}

/** What a verified token grants. */
export interface TokenGrantView {
  id: string;
  workspaceId: string;
  name: string;
  scopes: Scope[];
  /** Null: every bot of the workspace. */
  botIds: string[] | null;
  expiresAt: string | null;
}

/** A workspace as the edges need it: plan, billing, contract flags and quota overrides (null: the plan's default). */
export interface WorkspaceFactsView {
  id: string;
  name: string;
  plan: Plan;
  trialEndsAt: string | null;
  billingStatus: BillingStatus;
  enterpriseApi: boolean;
  enterpriseWebhooks: boolean;
  tierSlots: TierSlots;
  messagesPerMonth: number | null;
  pagesPerBot: number | null;
  botSlots: number | null;
}

/**
 * `token` is null for an unknown or revoked token (an expired one is returned: its expiry is
 * checked by the caller's clock, also while cached); `workspace` is null when it is gone.
 */
export interface VerifyTokenReply {
  token: TokenGrantView | null;
  workspace: WorkspaceFactsView | null;
}

/** identity.workspace.get: one workspace's facts. */
export class WorkspaceFactsRequest {
  @IsUUID('all') workspaceId: string;
}

export interface WorkspaceFactsReply {
  workspace: WorkspaceFactsView | null;
}

/**
 * identity.workspace.setup: the first-run setup's workspace (issue 31), asked by the console once
 * it holds the installation's setup lock. Idempotent by `workspaceId` (the console chooses it): a
 * retry returns the workspace already made.
 */
export class SetupWorkspaceRequest {
  @IsUUID('all') workspaceId: string;
  @IsString() @CharLength(1, WORKSPACE_NAME_MAX) name: string;
  @IsIn(PLANS) plan: Plan;
}

export class TokenUse {
  @IsUUID('all') id: string;
  @IsISO8601({ strict: true }) at: string;
}

/** identity.token.touch: when tokens were last used (batched by each edge; never moves a time back). */
export class RecordTokenUseRequest {
  @IsArray() @ArrayMaxSize(TOKEN_USES_MAX) @ValidateNested({ each: true }) @Type(() => TokenUse) uses: TokenUse[];
}

export interface RecordTokenUseReply {
  recorded: number;
}
