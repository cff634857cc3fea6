import { TokenBudgetView, TokenUsageRequest, TokenUsageView, UpdateTokenBudgetBody } from './token-usage';
import { HandoffConversationView, HandoffMessageView, HandoffNotifyReply, HandoffNotifyRequest, HandoffQueueRequest, HandoffReleaseRequest, HandoffReplyRequest, HandoffSessionRequest, HandoffTakeRequest, HandoffView, WidgetRepliesRequest, WidgetRepliesView } from './handoff';
import { EmailView, ListEmailsRequest } from './booking-mail';
import { BookingIdRequest, BookingView, CreateBookingRequest, ListBookingsRequest, UpdateBookingRequest } from './bookings';
import { AnalyticsChannelsRequest, AnalyticsChannelsView, AnalyticsQuestionsRequest, AnalyticsQuestionsView } from './analytics';
import { ActionCountsRequest, ActionCountsView, SessionActionCall, SessionActionCallsRequest } from './action-records';
import { BotView, CreateBotRequest, CreatedBotView, ListBotsRequest, UpdateBotRequest } from './bots';
import { BotBehaviourRequest, BotBehaviourView, UpdateBotBehaviourRequest } from './behaviour';
import {
  ActionIdRequest,
  ActionTestResult,
  ActionView,
  BotActionSettingsView,
  BotActionSpecs,
  BotActionsRequest,
  CreateActionRequest,
  TestActionRequest,
  UpdateActionRequest,
  UpdateBotActionSettingsRequest,
} from './actions';
import {
  CreateMcpServerRequest,
  FinishMcpOAuthRequest,
  McpOAuthFinishView,
  McpOAuthFlowRequest,
  McpOAuthFlowView,
  McpOAuthStartView,
  McpServerIdRequest,
  McpServersRequest,
  McpServerTokenRequest,
  McpServerTokenView,
  McpServerView,
  StartMcpOAuthRequest,
  UpdateMcpServerRequest,
} from './action-sources';
import { ConversationalLeadRequest, LeadView } from './leads';
import { ConsoleChatMessageView, ConsoleConversationsRequest, ConsoleLeadsRequest, LeadIdRequest, LeadStatusChangeView, UpdateLeadStatusRequest } from './records-console';
import {
  FeedbackRequest,
  HandoffRequest,
  IdentifyRequest,
  LeadFormRequest,
  PublicBot,
  PublicBotRequest,
  TicketRequest,
  TicketView,
  UpdateWidgetSettingsRequest,
  VerifyWidgetIdentityReply,
  VerifyWidgetIdentityRequest,
  WidgetSecretView,
  WidgetSettingsRequest,
  WidgetSettingsView,
  WidgetSessionCheck,
  WidgetSessionCheckRequest,
  WidgetSessionVerifyRequest,
  WidgetSessionRequest,
  WidgetSessionView,
} from './widget';
import { AnalyticsRequest, AnalyticsView, ChatMessageView, ChatTurnRequest, ChatTurnStarted, ConversationMessagesRequest, ConversationView } from './chat';
import { HealthPing, HealthReply } from './health';
import {
  ApiTokenIdRequest,
  ApiTokenView,
  CreateApiTokenRequest,
  CreatedApiTokenView,
  CreatedWebhookView,
  CreateWebhookRequest,
  DeliveryIdRequest,
  DeliveryView,
  ListApiTokensRequest,
  ListDeliveriesRequest,
  ListWebhooksRequest,
  MessageUsageView,
  PageUsageView,
  SendPersonEmailReply,
  SendPersonEmailRequest,
  UsageRequest,
  VerifyConnectionTokenReply,
  VerifyConnectionTokenRequest,
  WebhookIdRequest,
  WebhookSecretView,
  WebhookView,
} from './management';
import { RecordTokenUseReply, RecordTokenUseRequest, VerifyTokenReply, VerifyTokenRequest, SetupWorkspaceRequest, WorkspaceFactsReply, WorkspaceFactsRequest } from './identity';
import {
  AddKbQaRequest,
  BotSummary,
  CheckBotsReply,
  CheckBotsRequest,
  IngestKbRequest,
  KbDocumentView,
  KbIngestAccepted,
  ListKbRequest,
  PassageView,
  ResyncKbRequest,
  ScheduleKbRequest,
  SearchKnowledgeRequest,
  KbDocumentIdRequest,
} from './knowledge';
import {
  CreateModelConnectionRequest,
  EmbeddingSettingsRequest,
  EmbeddingSettingsView,
  ListModelConnectionsRequest,
  ModelConnectionIdRequest,
  ModelConnectionSpec,
  ModelConnectionTestResult,
  ModelConnectionView,
  TestModelConnectionRequest,
  UpdateEmbeddingSettingsRequest,
  UpdateModelConnectionRequest,
} from './models';
import { AddKbFileRequest, KbDocumentDeleted } from './knowledge-files';
import {
  CreateEvalCaseRequest,
  EvalAlertView,
  EvalBotRequest,
  EvalCaseIdRequest,
  EvalCaseView,
  EvalExportView,
  EvalImportResult,
  EvalNotifyReply,
  EvalNotifyRequest,
  EvalRunDetailView,
  EvalRunView,
  GetEvalRunRequest,
  EvalSettingsView,
  ExportEvalCasesRequest,
  ImportEvalCasesRequest,
  ListEvalAlertsRequest,
  ListEvalRunsRequest,
  StartEvalRunRequest,
  UpdateEvalCaseRequest,
  UpdateEvalSettingsRequest,
} from './evaluations';
import {
  ChannelConnectionIdRequest,
  ChannelConnectionView,
  ChannelConnectionsRequest,
  ChannelWebhookReply,
  ChannelWebhookRequest,
  CreateChannelConnectionRequest,
  UpdateChannelConnectionRequest,
} from './channels';

/** The eight services behind the gateway, each a NATS queue group of its own name. */
export const SERVICE_NAMES = ['bots', 'knowledge', 'chat', 'leads', 'bookings', 'mcp', 'webhook-dispatcher', 'evaluations', 'channels'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

type Constructor<T> = new () => T;

/** One request/reply operation: its request class (validated by the handler) and reply type. */
export interface RpcDef<Req, Res> {
  request: Constructor<Req>;
  /** False only for operations that carry no caller (health pings). */
  authenticated: boolean;
  /** Phantom member carrying the reply type. */
  readonly __response?: Res;
}

function rpc<Req, Res>(request: Constructor<Req>, authenticated = true): RpcDef<Req, Res> {
  return { request, authenticated };
}

export function healthSubject<S extends ServiceName>(service: S): `${S}.health.ping` {
  return `${service}.health.ping`;
}

const health = Object.fromEntries(SERVICE_NAMES.map((s) => [healthSubject(s), rpc<HealthPing, HealthReply>(HealthPing, false)])) as {
  [S in ServiceName as `${S}.health.ping`]: RpcDef<HealthPing, HealthReply>;
};

/**
 * The one map from NATS subject (`<service>.<entity>.<verb>`) to request class and reply type.
 * Call sites name subjects through this map only; `RpcClient.send` and `@RpcHandler` are typed by it.
 */
export const RPC = {
  ...health,
  'bots.bot.list': rpc<ListBotsRequest, BotView[]>(ListBotsRequest),
  'bots.bot.create': rpc<CreateBotRequest, CreatedBotView>(CreateBotRequest),
  'bots.bot.check': rpc<CheckBotsRequest, CheckBotsReply>(CheckBotsRequest),
  'knowledge.document.ingest': rpc<IngestKbRequest, KbIngestAccepted>(IngestKbRequest),
  'knowledge.document.list': rpc<ListKbRequest, KbDocumentView[]>(ListKbRequest),
  'knowledge.passage.search': rpc<SearchKnowledgeRequest, PassageView[]>(SearchKnowledgeRequest),
  'bots.bot.describe': rpc<CheckBotsRequest, BotSummary[]>(CheckBotsRequest),
  'chat.turn.start': rpc<ChatTurnRequest, ChatTurnStarted>(ChatTurnRequest),
  'chat.conversation.list': rpc<ConsoleConversationsRequest, ConversationView[]>(ConsoleConversationsRequest),
  'chat.conversation.messages': rpc<ConversationMessagesRequest, ChatMessageView[]>(ConversationMessagesRequest),
  // Issue 32 ("Why this answer"): the console's transcript for owners and admins, with each answer's passages.
  'chat.conversation.transcript': rpc<ConversationMessagesRequest, ConsoleChatMessageView[]>(ConversationMessagesRequest),
  // Issue 34 (records): the recorded action calls of a session's answers, for owners and admins (the console's transcript); calls per action (its Analytics page).
  'chat.conversation.action-calls': rpc<SessionActionCallsRequest, SessionActionCall[]>(SessionActionCallsRequest),
  'chat.analytics.actions': rpc<ActionCountsRequest, ActionCountsView>(ActionCountsRequest),
  'chat.analytics.summary': rpc<AnalyticsRequest, AnalyticsView>(AnalyticsRequest),
  'bookings.booking.list': rpc<ListBookingsRequest, BookingView[]>(ListBookingsRequest),
  'bookings.booking.get': rpc<BookingIdRequest, BookingView>(BookingIdRequest),
  'bookings.booking.update': rpc<UpdateBookingRequest, BookingView>(UpdateBookingRequest),
  'bookings.booking.create': rpc<CreateBookingRequest, BookingView>(CreateBookingRequest),
  'leads.lead.list': rpc<ConsoleLeadsRequest, LeadView[]>(ConsoleLeadsRequest),
  'bots.bot.public': rpc<PublicBotRequest, PublicBot>(PublicBotRequest, false),
  // Widget settings of a bot (issue 18); every change publishes `bots.widget.changed` (widget.ts).
  'bots.widget.get': rpc<WidgetSettingsRequest, WidgetSettingsView>(WidgetSettingsRequest),
  'bots.widget.update': rpc<UpdateWidgetSettingsRequest, WidgetSettingsView>(UpdateWidgetSettingsRequest),
  'bots.widget.secret.rotate': rpc<WidgetSettingsRequest, WidgetSecretView>(WidgetSettingsRequest),
  'bots.widget.identity.verify': rpc<VerifyWidgetIdentityRequest, VerifyWidgetIdentityReply>(VerifyWidgetIdentityRequest),
  'chat.message.feedback': rpc<FeedbackRequest, { message_id: string; feedback: 'positive' | 'negative' }>(FeedbackRequest),
  'chat.ticket.create': rpc<TicketRequest, TicketView>(TicketRequest),
  'chat.session.handoff': rpc<HandoffRequest, { session_id: string; handoff: true }>(HandoffRequest),
  'leads.visitor.identify': rpc<IdentifyRequest, { session_id: string; lead_id: string | null }>(IdentifyRequest),
  'leads.lead.capture': rpc<LeadFormRequest, LeadView>(LeadFormRequest),
  // Issue 34: the built-in action capture_contact (chat only; `captured_via: conversational`).
  'leads.lead.capture-conversational': rpc<ConversationalLeadRequest, LeadView>(ConversationalLeadRequest),
  'chat.widget-session.create': rpc<WidgetSessionRequest, WidgetSessionView>(WidgetSessionRequest),
  'chat.widget-session.check': rpc<WidgetSessionCheckRequest, WidgetSessionCheck>(WidgetSessionCheckRequest),
  'chat.widget-session.verify': rpc<WidgetSessionVerifyRequest, { verified: boolean }>(WidgetSessionVerifyRequest),
  'bookings.email.list': rpc<ListEmailsRequest, EmailView[]>(ListEmailsRequest),
  // Answered by the gateway (queue group `gateway`), owner of schema `identity`; see identity.ts.
  'identity.token.verify': rpc<VerifyTokenRequest, VerifyTokenReply>(VerifyTokenRequest, false),
  'identity.token.touch': rpc<RecordTokenUseRequest, RecordTokenUseReply>(RecordTokenUseRequest, false),
  'identity.workspace.get': rpc<WorkspaceFactsRequest, WorkspaceFactsReply>(WorkspaceFactsRequest, false),
  'identity.workspace.setup': rpc<SetupWorkspaceRequest, WorkspaceFactsReply>(SetupWorkspaceRequest, false),
  // Management by a workspace's people (the console, the admin CLI): see management.ts.
  'identity.token.create': rpc<CreateApiTokenRequest, CreatedApiTokenView>(CreateApiTokenRequest),
  'identity.token.list': rpc<ListApiTokensRequest, ApiTokenView[]>(ListApiTokensRequest),
  'identity.token.revoke': rpc<ApiTokenIdRequest, ApiTokenView>(ApiTokenIdRequest),
  'webhook-dispatcher.webhook.create': rpc<CreateWebhookRequest, CreatedWebhookView>(CreateWebhookRequest),
  'webhook-dispatcher.webhook.list': rpc<ListWebhooksRequest, WebhookView[]>(ListWebhooksRequest),
  'webhook-dispatcher.webhook.delete': rpc<WebhookIdRequest, { id: string; deleted: true }>(WebhookIdRequest),
  'webhook-dispatcher.webhook.rotate': rpc<WebhookIdRequest, WebhookSecretView>(WebhookIdRequest),
  'webhook-dispatcher.webhook.test': rpc<WebhookIdRequest, DeliveryView>(WebhookIdRequest),
  'webhook-dispatcher.delivery.list': rpc<ListDeliveriesRequest, DeliveryView[]>(ListDeliveriesRequest),
  'webhook-dispatcher.delivery.redeliver': rpc<DeliveryIdRequest, DeliveryView>(DeliveryIdRequest),
  'chat.usage.get': rpc<UsageRequest, MessageUsageView>(UsageRequest),
  // Issue 32: tokens per bot and day, and the workspace's monthly token budget (token-usage.ts).
  'chat.tokens.usage': rpc<TokenUsageRequest, TokenUsageView>(TokenUsageRequest),
  'chat.tokens.budget.set': rpc<UpdateTokenBudgetBody, TokenBudgetView>(UpdateTokenBudgetBody),
  'knowledge.usage.get': rpc<UsageRequest, PageUsageView>(UsageRequest),
  'bookings.email.send': rpc<SendPersonEmailRequest, SendPersonEmailReply>(SendPersonEmailRequest, false),
  // Answered by the console (queue group `console`), owner of OAuth connections (issue 17).
  'console.connection.verify': rpc<VerifyConnectionTokenRequest, VerifyConnectionTokenReply>(VerifyConnectionTokenRequest, false),
  // Issue 19 (kq): Q&A documents, re-sync of URL sources now or on a schedule (knowledge.ts).
  'knowledge.document.add-qa': rpc<AddKbQaRequest, KbDocumentView>(AddKbQaRequest),
  'knowledge.document.resync': rpc<ResyncKbRequest, KbDocumentView>(ResyncKbRequest),
  'knowledge.document.schedule': rpc<ScheduleKbRequest, KbDocumentView>(ScheduleKbRequest),
  // Issue 19 (ba): bot settings and the Analytics page's question insights.
  'bots.bot.update': rpc<UpdateBotRequest, BotView>(UpdateBotRequest),
  // Issue 32: a bot's behaviour (instructions, fallback reply, answer length, starter questions).
  'bots.behaviour.get': rpc<BotBehaviourRequest, BotBehaviourView>(BotBehaviourRequest),
  'bots.behaviour.update': rpc<UpdateBotBehaviourRequest, BotBehaviourView>(UpdateBotBehaviourRequest),
  // Issue 32, "Models": the workspace's model connections (keys sealed, write-only), and the
  // workspace's embedding model with the state of its re-embedding (knowledge).
  'bots.model.list': rpc<ListModelConnectionsRequest, ModelConnectionView[]>(ListModelConnectionsRequest),
  'bots.model.create': rpc<CreateModelConnectionRequest, ModelConnectionView>(CreateModelConnectionRequest),
  'bots.model.update': rpc<UpdateModelConnectionRequest, ModelConnectionView>(UpdateModelConnectionRequest),
  'bots.model.delete': rpc<ModelConnectionIdRequest, { deleted: true }>(ModelConnectionIdRequest),
  'bots.model.test': rpc<TestModelConnectionRequest, ModelConnectionTestResult>(TestModelConnectionRequest),
  /** A connection as chat and knowledge call it (key sealed). */
  'bots.model.spec': rpc<ModelConnectionIdRequest, ModelConnectionSpec>(ModelConnectionIdRequest),
  'knowledge.embedding.get': rpc<EmbeddingSettingsRequest, EmbeddingSettingsView>(EmbeddingSettingsRequest),
  'knowledge.embedding.update': rpc<UpdateEmbeddingSettingsRequest, EmbeddingSettingsView>(UpdateEmbeddingSettingsRequest),
  'chat.analytics.questions': rpc<AnalyticsQuestionsRequest, AnalyticsQuestionsView>(AnalyticsQuestionsRequest),
  // Issue 35: conversations and visitor messages per channel, for the console's Analytics page (analytics.ts).
  'chat.analytics.channels': rpc<AnalyticsChannelsRequest, AnalyticsChannelsView>(AnalyticsChannelsRequest),
  // Issue 19 (lb): a lead, its status history and status changes (who and when) for the console.
  'leads.lead.get': rpc<LeadIdRequest, LeadView>(LeadIdRequest),
  'leads.lead.history': rpc<LeadIdRequest, LeadStatusChangeView[]>(LeadIdRequest),
  'leads.lead.update-status': rpc<UpdateLeadStatusRequest, LeadView>(UpdateLeadStatusRequest),
  // Issue 19 (h): the handoff queue (chat service) and its e-mail to owners and admins (console); see handoff.ts.
  'chat.handoff.queue': rpc<HandoffQueueRequest, HandoffView[]>(HandoffQueueRequest),
  'chat.handoff.get': rpc<HandoffSessionRequest, HandoffConversationView>(HandoffSessionRequest),
  'chat.handoff.take': rpc<HandoffTakeRequest, HandoffView>(HandoffTakeRequest),
  'chat.handoff.reply': rpc<HandoffReplyRequest, HandoffMessageView>(HandoffReplyRequest),
  'chat.handoff.release': rpc<HandoffReleaseRequest, HandoffView>(HandoffReleaseRequest),
  'chat.handoff.widget-replies': rpc<WidgetRepliesRequest, WidgetRepliesView>(WidgetRepliesRequest),
  'console.handoff.notify': rpc<HandoffNotifyRequest, HandoffNotifyReply>(HandoffNotifyRequest, false),
  // Issue 19 (kf): uploaded files (put into blob storage first) and deleting a document (knowledge-files.ts).
  'knowledge.document.add-file': rpc<AddKbFileRequest, KbDocumentView>(AddKbFileRequest),
  'knowledge.document.delete': rpc<KbDocumentIdRequest, KbDocumentDeleted>(KbDocumentIdRequest),
  // Issue 35: channel connections (credentials sealed, write-only) and the providers' webhooks; see channels.ts.
  'channels.connection.list': rpc<ChannelConnectionsRequest, ChannelConnectionView[]>(ChannelConnectionsRequest),
  'channels.connection.create': rpc<CreateChannelConnectionRequest, ChannelConnectionView>(CreateChannelConnectionRequest),
  'channels.connection.update': rpc<UpdateChannelConnectionRequest, ChannelConnectionView>(UpdateChannelConnectionRequest),
  'channels.connection.delete': rpc<ChannelConnectionIdRequest, ChannelConnectionView>(ChannelConnectionIdRequest),
  'channels.webhook.receive': rpc<ChannelWebhookRequest, ChannelWebhookReply>(ChannelWebhookRequest, false),
  // Issue 33: evaluations (test sets, runs, gates); see evaluations.ts.
  'evaluations.case.list': rpc<EvalBotRequest, EvalCaseView[]>(EvalBotRequest),
  'evaluations.case.create': rpc<CreateEvalCaseRequest, EvalCaseView>(CreateEvalCaseRequest),
  'evaluations.case.update': rpc<UpdateEvalCaseRequest, EvalCaseView>(UpdateEvalCaseRequest),
  'evaluations.case.delete': rpc<EvalCaseIdRequest, { deleted: true }>(EvalCaseIdRequest),
  'evaluations.case.import': rpc<ImportEvalCasesRequest, EvalImportResult>(ImportEvalCasesRequest),
  'evaluations.case.export': rpc<ExportEvalCasesRequest, EvalExportView>(ExportEvalCasesRequest),
  'evaluations.settings.get': rpc<EvalBotRequest, EvalSettingsView>(EvalBotRequest),
  'evaluations.settings.update': rpc<UpdateEvalSettingsRequest, EvalSettingsView>(UpdateEvalSettingsRequest),
  'evaluations.run.start': rpc<StartEvalRunRequest, EvalRunView>(StartEvalRunRequest),
  'evaluations.run.list': rpc<ListEvalRunsRequest, EvalRunView[]>(ListEvalRunsRequest),
  'evaluations.run.get': rpc<GetEvalRunRequest, EvalRunDetailView>(GetEvalRunRequest),
  'evaluations.alert.list': rpc<ListEvalAlertsRequest, EvalAlertView[]>(ListEvalAlertsRequest),
  'console.evaluation.notify': rpc<EvalNotifyRequest, EvalNotifyReply>(EvalNotifyRequest, false),
  // Issue 34: a bot's actions (header values sealed, write-only) and its action settings; see actions.ts.
  'bots.action.list': rpc<BotActionsRequest, ActionView[]>(BotActionsRequest),
  'bots.action.get': rpc<ActionIdRequest, ActionView>(ActionIdRequest),
  'bots.action.create': rpc<CreateActionRequest, ActionView>(CreateActionRequest),
  'bots.action.update': rpc<UpdateActionRequest, ActionView>(UpdateActionRequest),
  'bots.action.delete': rpc<ActionIdRequest, { deleted: true }>(ActionIdRequest),
  'bots.action.test': rpc<TestActionRequest, ActionTestResult>(TestActionRequest),
  /** A bot's enabled actions as chat calls them (header values sealed) and its settings. */
  'bots.action.specs': rpc<BotActionsRequest, BotActionSpecs>(BotActionsRequest),
  'bots.action-settings.get': rpc<BotActionsRequest, BotActionSettingsView>(BotActionsRequest),
  'bots.action-settings.update': rpc<UpdateBotActionSettingsRequest, BotActionSettingsView>(UpdateBotActionSettingsRequest),
  // Issue 34, item 3: remote MCP servers as action sources (token sealed, write-only); see action-sources.ts.
  'bots.mcp-server.list': rpc<McpServersRequest, McpServerView[]>(McpServersRequest),
  'bots.mcp-server.create': rpc<CreateMcpServerRequest, McpServerView>(CreateMcpServerRequest),
  'bots.mcp-server.update': rpc<UpdateMcpServerRequest, McpServerView>(UpdateMcpServerRequest),
  /** Answers the server as it was before it was deleted (for the audit log). */
  'bots.mcp-server.delete': rpc<McpServerIdRequest, McpServerView>(McpServerIdRequest),
  /** Connects, lists the tools and stores them; a failure is the view's `error`, not an error of the RPC. */
  'bots.mcp-server.sync': rpc<McpServerIdRequest, McpServerView>(McpServerIdRequest),
  /** OAuth as a client: discovery, registration, PKCE; answers the authorization URL (state and verifier kept with the server, 10 min). */
  'bots.mcp-server.oauth-start': rpc<StartMcpOAuthRequest, McpOAuthStartView>(StartMcpOAuthRequest),
  /** The server a callback's state belongs to, for the person who started it (invalid_token otherwise); consumes nothing. */
  'bots.mcp-server.oauth-flow': rpc<McpOAuthFlowRequest, McpOAuthFlowView>(McpOAuthFlowRequest, false),
  /** The callback: the state checked and spent, the code exchanged, the tokens sealed, a sync. */
  'bots.mcp-server.oauth-finish': rpc<FinishMcpOAuthRequest, McpOAuthFinishView>(FinishMcpOAuthRequest),
  /** Chat: a fresh OAuth access token (refreshed when expired or refused), sealed. */
  'bots.mcp-server.token': rpc<McpServerTokenRequest, McpServerTokenView>(McpServerTokenRequest),
} as const;

export type RpcSubject = keyof typeof RPC;
export type RpcRequest<S extends RpcSubject> = (typeof RPC)[S] extends RpcDef<infer Req, unknown> ? Req : never;
export type RpcResponse<S extends RpcSubject> = (typeof RPC)[S] extends RpcDef<unknown, infer Res> ? Res : never;

/**
 * The operations that change nothing (issue 36): a request to one of them lost with the replica
 * that took it is asked once more, of another replica, and the caller sees nothing. Any other
 * request is never sent twice once a replica may have taken it: its caller gets a 503 with
 * Retry-After instead (its outcome is unknown). Writes that merely look idempotent (a token's
 * last use, an OAuth token refresh, a widget's handoff replies, which mark what they return) are
 * left out on purpose.
 */
export const RPC_READS: ReadonlySet<RpcSubject> = new Set<RpcSubject>([
  ...SERVICE_NAMES.map(healthSubject),
  'bots.bot.list',
  'bots.bot.check',
  'bots.bot.describe',
  'bots.bot.public',
  'bots.widget.get',
  'bots.widget.identity.verify',
  'bots.behaviour.get',
  'bots.model.list',
  'bots.model.spec',
  'bots.action.list',
  'bots.action.get',
  'bots.action.specs',
  'bots.action-settings.get',
  'bots.mcp-server.list',
  'bots.mcp-server.oauth-flow',
  'knowledge.document.list',
  'knowledge.passage.search',
  'knowledge.usage.get',
  'knowledge.embedding.get',
  'chat.conversation.list',
  'chat.conversation.messages',
  'chat.conversation.transcript',
  'chat.conversation.action-calls',
  'chat.analytics.actions',
  'chat.analytics.summary',
  'chat.analytics.questions',
  'chat.analytics.channels',
  'chat.widget-session.check',
  'chat.usage.get',
  'chat.tokens.usage',
  'chat.handoff.queue',
  'chat.handoff.get',
  'bookings.booking.list',
  'bookings.booking.get',
  'bookings.email.list',
  'leads.lead.list',
  'leads.lead.get',
  'leads.lead.history',
  'identity.token.verify',
  'identity.workspace.get',
  'identity.token.list',
  'webhook-dispatcher.webhook.list',
  'webhook-dispatcher.delivery.list',
  'console.connection.verify',
  'channels.connection.list',
  'evaluations.case.list',
  'evaluations.case.export',
  'evaluations.settings.get',
  'evaluations.run.list',
  'evaluations.run.get',
  'evaluations.alert.list',
]);
