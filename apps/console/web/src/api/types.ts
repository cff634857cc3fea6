import type { paths } from './schema';

/*
 * The views the pages use, taken from the API's paths (not from schema names), so that the
 * generated schema can replace the hand-written one without touching the pages.
 */
type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: infer R }
  ? R extends { 200: infer A } ? Json<A> : R extends { 201: infer A } ? Json<A> : R extends { 202: infer A } ? Json<A> : never
  : never;
type Created<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: { 201: infer A } } ? Json<A> : never;
type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
type Item<T> = T extends { data: (infer I)[] } ? I : never;

type W = '/workspaces/{workspaceId}';
type WP<S extends string> = `${W}${S}` & keyof paths;

export type Session = Ok<'/session', 'get'>;
export type SessionWorkspace = Session['workspaces'][number];
export type Role = SessionWorkspace['role'];
export type InvitationPreview = Ok<'/invitations/{token}', 'get'>;
export type Workspace = Ok<W, 'get'>;
export type Bot = Item<Ok<WP<'/bots'>, 'get'>>;
export type ApiToken = Item<Ok<WP<'/tokens'>, 'get'>>;
export type CreateApiToken = Body<WP<'/tokens'>, 'post'>;
export type CreatedApiToken = Created<WP<'/tokens'>, 'post'>;
export type Webhook = Item<Ok<WP<'/webhooks'>, 'get'>>;
export type LastDelivery = NonNullable<Webhook['last_delivery']>;
export type CreateWebhook = Body<WP<'/webhooks'>, 'post'>;
export type CreatedWebhook = Created<WP<'/webhooks'>, 'post'>;
export type WebhookSecret = Ok<WP<'/webhooks/{webhookId}/rotate-secret'>, 'post'>;
export type Delivery = Item<Ok<WP<'/webhooks/{webhookId}/deliveries'>, 'get'>>;
export type Member = Item<Ok<WP<'/members'>, 'get'>>;
export type Invitation = Item<Ok<WP<'/invitations'>, 'get'>>;
export type InviteBody = Body<WP<'/invitations'>, 'post'>;
export type AuditEntry = Item<Ok<WP<'/audit'>, 'get'>>;
export type OAuthInteraction = Ok<'/oauth/interactions/{uid}', 'get'>;
export type OAuthAllow = Body<'/oauth/interactions/{uid}/allow', 'post'>;
export type WidgetSettings = Ok<WP<'/bots/{botId}/widget'>, 'get'>['data'];
export type UpdateWidget = Body<WP<'/bots/{botId}/widget'>, 'patch'>;
export type WidgetSecret = Created<WP<'/bots/{botId}/widget/secret'>, 'post'>['data'];
export type Connection = Item<Ok<WP<'/connections'>, 'get'>>;
export type CreateBot = Body<WP<'/bots'>, 'post'>;
export type CreatedBot = Created<WP<'/bots'>, 'post'>['data'];
export type UpdateBot = Body<WP<'/bots/{botId}'>, 'patch'>;
export type Analytics = Ok<WP<'/analytics'>, 'get'>['data'];
export type AnalyticsQuestions = Ok<WP<'/analytics/questions'>, 'get'>['data'];
export type AskedQuestion = AnalyticsQuestions['top'][number];
// Issue 19 (lb): conversations, leads and bookings.
export type Conversation = Item<Ok<WP<'/conversations'>, 'get'>>;
export type ConversationDetail = Ok<WP<'/conversations/{sessionId}'>, 'get'>['data'];
export type ChatMessage = ConversationDetail['messages'][number];
export type LeadPage = Ok<WP<'/leads'>, 'get'>;
export type Lead = LeadPage['data'][number];
export type LeadDetail = Ok<WP<'/leads/{leadId}'>, 'get'>['data'];
export type LeadStatusChange = LeadDetail['history'][number];
export type Booking = Item<Ok<WP<'/bookings'>, 'get'>>;
export type UpdateBooking = Body<WP<'/bookings/{bookingId}'>, 'patch'>;
export type BotBehaviour = Ok<WP<'/bots/{botId}/behaviour'>, 'get'>['data'];
export type UpdateBotBehaviour = Body<WP<'/bots/{botId}/behaviour'>, 'patch'>;
export type PlaygroundTurn = Body<WP<'/bots/{botId}/playground'>, 'post'>;
export type PlaygroundBehaviour = NonNullable<PlaygroundTurn['behaviour']>;
// Issue 32: the Models page (provider connections, the embedding model).
export type ModelConnection = Item<Ok<WP<'/models'>, 'get'>>;
export type ModelKind = ModelConnection['kind'];
export type CreateModelConnection = Body<WP<'/models'>, 'post'>;
export type UpdateModelConnection = Body<WP<'/models/{connectionId}'>, 'patch'>;
export type TestModelConnection = Body<WP<'/models/{connectionId}/test'>, 'post'>;
export type ModelConnectionTestResult = Ok<WP<'/models/{connectionId}/test'>, 'post'>['data'];
export type EmbeddingSettings = Ok<WP<'/embedding'>, 'get'>['data'];
export type UpdateEmbeddingSettings = Body<WP<'/embedding'>, 'put'>;
// Issue 33: the Evaluations page (test sets, runs, gates).
export type EvalCase = Item<Ok<WP<'/bots/{botId}/evaluations/cases'>, 'get'>>;
export type CreateEvalCase = Body<WP<'/bots/{botId}/evaluations/cases'>, 'post'>;
export type UpdateEvalCase = Body<WP<'/bots/{botId}/evaluations/cases/{caseId}'>, 'patch'>;
export type ImportEvalCases = Body<WP<'/bots/{botId}/evaluations/cases/import'>, 'post'>;
export type EvalSettings = Ok<WP<'/bots/{botId}/evaluations/settings'>, 'get'>['data'];
export type UpdateEvalSettings = Body<WP<'/bots/{botId}/evaluations/settings'>, 'put'>;
export type EvalRun = Item<Ok<WP<'/bots/{botId}/evaluations/runs'>, 'get'>>;
export type EvalRunDetail = Ok<WP<'/bots/{botId}/evaluations/runs/{runId}'>, 'get'>['data'];
export type EvalResult = EvalRunDetail['results'][number];
export type EvalAlert = Item<Ok<WP<'/evaluations/alerts'>, 'get'>>;
export type EvalExpectation = EvalCase['expect'];
export type EvalImportResult = Ok<WP<'/bots/{botId}/evaluations/cases/import'>, 'post'>['data'];
// Issue 34: a bot's actions (definitions, test, built-ins and the limit per turn).
export type BotAction = Item<Ok<WP<'/bots/{botId}/actions'>, 'get'>>;
export type ActionMethod = BotAction['method'];
export type CreateBotAction = Body<WP<'/bots/{botId}/actions'>, 'post'>;
export type UpdateBotAction = Body<WP<'/bots/{botId}/actions/{actionId}'>, 'patch'>;
export type TestBotAction = Body<WP<'/bots/{botId}/actions/{actionId}/test'>, 'post'>;
export type ActionTestResult = Ok<WP<'/bots/{botId}/actions/{actionId}/test'>, 'post'>['data'];
export type BotActionSettings = Ok<WP<'/bots/{botId}/action-settings'>, 'get'>['data'];
export type UpdateBotActionSettings = Body<WP<'/bots/{botId}/action-settings'>, 'patch'>;
