import type { Type } from '@nestjs/common';
import { AnalyticsController } from './analytics/analytics.controller';
import { AuditController } from './audit/audit.controller';
import { BotsController } from './bots/bots.controller';
import { TryBotController } from './bots/try-bot.controller';
import { BehaviourController } from './bots/behaviour.controller';
import { PlaygroundController } from './bots/playground.controller';
import { EvaluationsController } from './evaluations/evaluations.controller';
import { ModelsController } from './models/models.controller';
import { ActionsController } from './actions/actions.controller';
import { McpOAuthCallbackController, McpServersController } from './actions/mcp-servers.controller';
import { ChannelsController } from './channels/channels.controller';
import { TokenBudgetController } from './workspace/token-budget.controller';
import { ConnectionsController } from './connections/connections.controller';
import { KnowledgeController } from './knowledge/knowledge.controller';
import { InvitationsController } from './invitations/invitations.controller';
import { PublicInvitationsController } from './invitations/public-invitations.controller';
import { MembersController } from './members/members.controller';
import { ConsoleOpenApiController } from './openapi/openapi.controller';
import { PasswordResetController } from './password/password-reset.controller';
import { SessionController } from './session/session.controller';
import { SetupController } from './setup/setup.controller';
import { TokensController } from './tokens/tokens.controller';
import { WebhooksController } from './webhooks/webhooks.controller';
import { WidgetController } from './widget/widget.controller';
import { WorkspaceController } from './workspace/workspace.controller';
import { ConversationsController } from './conversations/conversations.controller';
import { LeadsController } from './leads/leads.controller';
import { BookingsController } from './bookings/bookings.controller';
import { OauthInteractionsController } from './oauth/interactions.controller';
import { ConnectionVerifyHandler } from './oauth/connection-verify.handler';
import { HandoffController } from './handoff/handoff.controller';
import { HandoffNotifyHandler } from './handoff/handoff-notify.handler';
import { EvaluationNotifyHandler } from './evaluations/evaluation-notify.handler';

/** Every controller of the console's API (the OpenAPI document is generated from these). */
export const CONSOLE_CONTROLLERS: Type[] = [
  SessionController,
  SetupController,
  PasswordResetController,
  PublicInvitationsController,
  WorkspaceController,
  BotsController,
  TryBotController,
  BehaviourController,
  PlaygroundController,
  ModelsController,
  TokenBudgetController,
  WidgetController,
  KnowledgeController,
  TokensController,
  WebhooksController,
  MembersController,
  InvitationsController,
  ConnectionsController,
  AuditController,
  ConversationsController,
  LeadsController,
  BookingsController,
  HandoffController,
  OauthInteractionsController,
  AnalyticsController,
  EvaluationsController,
  ActionsController,
  McpServersController,
  McpOAuthCallbackController,
  ChannelsController,
  ConsoleOpenApiController,
];

/** The console's NATS handlers (queue group `console`). */
export const CONSOLE_HANDLERS: Type[] = [ConnectionVerifyHandler, HandoffNotifyHandler, EvaluationNotifyHandler];
