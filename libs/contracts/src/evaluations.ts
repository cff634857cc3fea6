import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsISO8601, IsNumber, IsOptional, IsString, IsUUID, Max, Min } from 'class-validator';
import { MessagePassageView } from './records-console';
import { Doc, Nested, Nullable } from './schema-docs';
import { CharLength, IsLanguageTag, NotBlank, toInt } from './validation';

/**
 * Evaluations (issue 33): each bot has a test set, cases of a question and what a good reply must
 * do. A run answers every case through the real chat path (a turn stored and counted nowhere, as
 * the playground's) and grades the replies; a run under the bot's threshold e-mails its owners and
 * admins and shows a banner in the console. The evaluations service owns all of it.
 */
export const EVAL_QUESTION_MAX = 2000;
export const EVAL_FACT_MAX = 500;
export const EVAL_FACTS_MAX = 20;
export const EVAL_NOTE_MAX = 500;
/** Cases of one bot's test set. */
export const EVAL_CASES_MAX = 1000;
/** An import's text (CSV or JSONL), in characters. */
export const EVAL_IMPORT_MAX_CHARS = 2_000_000;
export const EVAL_RUNS_LIMIT_MAX = 100;
/** Results of a run per page (evaluations.run.get): at most this many, and at most EVAL_RESULTS_PAGE_BYTES of JSON, so a reply fits a NATS message. */
export const EVAL_RESULTS_PAGE_MAX = 200;
export const EVAL_RESULTS_PAGE_DEFAULT = 100;
export const EVAL_RESULTS_PAGE_BYTES = 600_000;
/** What a bot's test set may hold in all (questions, facts and notes, UTF-8), so the whole set fits one NATS message. */
export const EVAL_SET_MAX_BYTES = 512 * 1024;

/** What a good reply does: contains every given fact, or is counted unanswered (the knowledge has nothing), or hands off to a person. */
export const EVAL_EXPECTATIONS = ['facts', 'unanswered', 'handoff'] as const;
export type EvalExpectation = (typeof EVAL_EXPECTATIONS)[number];
/** Where a case came from. */
export const EVAL_CASE_SOURCES = ['manual', 'import', 'transcript', 'analytics'] as const;
export type EvalCaseSource = (typeof EVAL_CASE_SOURCES)[number];
export const EVAL_IMPORT_FORMATS = ['csv', 'jsonl'] as const;
export type EvalImportFormat = (typeof EVAL_IMPORT_FORMATS)[number];
/** What started a run. */
export const EVAL_TRIGGERS = ['manual', 'cli', 'knowledge', 'behaviour', 'model'] as const;
export type EvalTrigger = (typeof EVAL_TRIGGERS)[number];
/** queued: waiting for a worker; running; completed: every case answered; failed: stopped (see error); cancelled: replaced by a newer run. */
export const EVAL_RUN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type EvalRunStatus = (typeof EVAL_RUN_STATUSES)[number];
/** pass / fail by the rules; error: no reply (the model failed, the run's budget was used up). */
export const EVAL_VERDICTS = ['pass', 'fail', 'error'] as const;
export type EvalVerdict = (typeof EVAL_VERDICTS)[number];

@Doc({ name: 'EvalCase', description: 'A case of a bot\'s test set: a question and what a good reply must do. User text: render it as text.' })
export class EvalCaseView {
  @IsUUID('all') id: string;
  @IsString() question: string;
  @Doc('The reply language to ask for (BCP 47); null: as a visitor who names none.') @Nullable() @IsString() language: string | null;
  @Doc('facts: the reply contains every fact (matched ignoring case, accents, spacing and number formats); unanswered: the bot says it does not know; handoff: the bot hands off to a person.')
  @IsIn(EVAL_EXPECTATIONS)
  expect: EvalExpectation;
  @IsArray() @IsString({ each: true }) facts: string[];
  @Nullable() @IsString() note: string | null;
  @IsIn(EVAL_CASE_SOURCES) source: EvalCaseSource;
  @IsISO8601() created_at: string;
  @IsISO8601() updated_at: string;
}

@Doc({ name: 'EvalCaseCreate', description: 'A new case. `facts` is required (1 or more) when `expect` is facts, and must be empty otherwise. Unknown members are rejected (400).' })
export class CreateEvalCaseBody {
  @IsString() @CharLength(1, EVAL_QUESTION_MAX) @NotBlank() question: string;
  @IsOptional() @Nullable() @IsString() @IsLanguageTag() language?: string | null;
  @IsIn(EVAL_EXPECTATIONS) expect: EvalExpectation;
  @IsOptional() @IsArray() @ArrayMaxSize(EVAL_FACTS_MAX) @IsString({ each: true }) @CharLength(1, EVAL_FACT_MAX, { each: true }) @NotBlank({ each: true }) facts?: string[];
  @IsOptional() @Nullable() @IsString() @CharLength(0, EVAL_NOTE_MAX) note?: string | null;
  @Doc('Where it came from (default manual).') @IsOptional() @IsIn(EVAL_CASE_SOURCES) source?: EvalCaseSource;
}

@Doc({ name: 'EvalCaseUpdate', description: 'A change to a case; members left out stay as they are. Unknown members are rejected (400).' })
export class UpdateEvalCaseBody {
  @IsOptional() @IsString() @CharLength(1, EVAL_QUESTION_MAX) @NotBlank() question?: string;
  @IsOptional() @Nullable() @IsString() @IsLanguageTag() language?: string | null;
  @IsOptional() @IsIn(EVAL_EXPECTATIONS) expect?: EvalExpectation;
  @IsOptional() @IsArray() @ArrayMaxSize(EVAL_FACTS_MAX) @IsString({ each: true }) @CharLength(1, EVAL_FACT_MAX, { each: true }) @NotBlank({ each: true }) facts?: string[];
  @IsOptional() @Nullable() @IsString() @CharLength(0, EVAL_NOTE_MAX) note?: string | null;
}

@Doc({
  name: 'EvalImport',
  description:
    'A test set to import. csv: a header row with question, expect, facts (facts separated by "|"), and optionally language and note. ' +
    'jsonl: one JSON object per line with the same members (facts an array). Every line is checked first; one bad line rejects the whole import (400, naming the line).',
})
export class ImportEvalCasesBody {
  @IsIn(EVAL_IMPORT_FORMATS) format: EvalImportFormat;
  @IsString() @CharLength(1, EVAL_IMPORT_MAX_CHARS) content: string;
  @Doc('append (default): add to the set; replace: the set becomes the imported cases.') @IsOptional() @IsIn(['append', 'replace']) mode?: 'append' | 'replace';
}

@Doc({ name: 'EvalImportResult', description: 'What an import did.' })
export class EvalImportResult {
  @IsInt() imported: number;
  @IsInt() total: number;
}

@Doc({ name: 'EvalExport', description: 'The test set as CSV or JSONL, in the import format.' })
export class EvalExportView {
  @IsIn(EVAL_IMPORT_FORMATS) format: EvalImportFormat;
  @IsString() content: string;
}

@Doc({ name: 'EvalSettings', description: "A bot's evaluation settings." })
export class EvalSettingsView {
  @IsUUID('all') chatbot_id: string;
  @Doc('The gate: a run whose pass rate is under it e-mails owners and admins and shows a banner (0 to 1); null: no gate.') @Nullable() @IsNumber() min_pass_rate: number | null;
  @Doc('Run automatically (debounced) after knowledge, behaviour or model changes.') @IsBoolean() auto_run: boolean;
  @Doc("Have the bot's model also grade each reply (grounded, correct, complete). Needs a model; without one only the rules grade.") @IsBoolean() judge: boolean;
}

@Doc({ name: 'EvalSettingsUpdate', description: 'Members left out stay as they are. Unknown members are rejected (400).' })
export class UpdateEvalSettingsBody {
  @IsOptional() @Nullable() @IsNumber() @Min(0) @Max(1) min_pass_rate?: number | null;
  @IsOptional() @IsBoolean() auto_run?: boolean;
  @IsOptional() @IsBoolean() judge?: boolean;
}

@Doc({ name: 'EvalRun', description: 'One run of a bot\'s test set.' })
export class EvalRunView {
  @IsUUID('all') id: string;
  @IsUUID('all') chatbot_id: string;
  @IsIn(EVAL_RUN_STATUSES) status: EvalRunStatus;
  @IsIn(EVAL_TRIGGERS) trigger: EvalTrigger;
  @Doc('Cases in the run, answered so far, and passed (by the rules).') @IsInt() total: number;
  @IsInt() done: number;
  @IsInt() passed: number;
  @Doc('passed / total once completed; null before.') @Nullable() @IsNumber() pass_rate: number | null;
  @Doc('The gate when the run started; null: none.') @Nullable() @IsNumber() min_pass_rate: number | null;
  @Doc('Completed under the gate.') @IsBoolean() below_threshold: boolean;
  @Doc('Model tokens the run used, and its budget (EVAL_RUN_TOKEN_BUDGET).') @IsInt() tokens_used: number;
  @IsInt() token_budget: number;
  @Nullable() @IsString() error: string | null;
  @IsISO8601() created_at: string;
  @Nullable() @IsISO8601() started_at: string | null;
  @Nullable() @IsISO8601() finished_at: string | null;
}

@Doc({ name: 'EvalJudgement', description: "The judge model's grading of a reply (when the bot has a model and judging is on)." })
export class EvalJudgementView {
  @IsBoolean() grounded: boolean;
  @IsBoolean() correct: boolean;
  @IsBoolean() complete: boolean;
  @IsIn(['pass', 'fail']) verdict: 'pass' | 'fail';
  @Doc("The judge's reason, model output: render it as text.") @IsString() reason: string;
}

@Doc({ name: 'EvalResult', description: "One case's outcome in a run." })
export class EvalResultView {
  @IsUUID('all') case_id: string;
  @IsString() question: string;
  @Nullable() @IsString() language: string | null;
  @IsIn(EVAL_EXPECTATIONS) expect: EvalExpectation;
  @IsArray() @IsString({ each: true }) facts: string[];
  @IsIn(EVAL_VERDICTS) verdict: EvalVerdict;
  @Doc('Why, for people: the facts missing, "Answered, but should have said it does not know", …') @IsString() reason: string;
  @Doc("The bot's reply (model output: render it as text).") @IsString() reply: string;
  @IsBoolean() unanswered: boolean;
  @IsBoolean() handoff: boolean;
  @IsArray() @Nested(() => MessagePassageView) passages: MessagePassageView[];
  @Nullable() @Nested(() => EvalJudgementView) judge: EvalJudgementView | null;
  @Doc("This case's verdict in the bot's previous completed run; null: not in it.") @Nullable() @IsIn(EVAL_VERDICTS) previous_verdict: EvalVerdict | null;
  @Doc('The verdict differs from the previous run (newly failing or newly passing). Listed first.') @IsBoolean() changed: boolean;
  @IsInt() latency_ms: number;
}

@Doc({ name: 'EvalRunDetail', description: 'A run and one page of its results, the changed cases first.' })
export class EvalRunDetailView {
  @Nested(() => EvalRunView) run: EvalRunView;
  @Doc('Results from `offset` on, in order: the cases whose verdict changed since the previous run first, then the others in the order of the test set.')
  @IsArray()
  @Nested(() => EvalResultView)
  results: EvalResultView[];
  @Doc('Results recorded so far.') @IsInt() results_total: number;
  @Doc('The `offset` of the next page; null: this page is the last.') @Nullable() @IsInt() next_offset: number | null;
}

@Doc({ name: 'EvalAlert', description: "A bot whose latest completed run is under its gate (the console's banner)." })
export class EvalAlertView {
  @IsUUID('all') chatbot_id: string;
  @IsUUID('all') run_id: string;
  @IsNumber() pass_rate: number;
  @IsNumber() min_pass_rate: number;
  @IsISO8601() finished_at: string;
}

@Doc({ name: 'EvalRunStart', description: 'Start a run now. Unknown members are rejected (400).' })
export class StartEvalRunBody {}

export class EvalResultsQuery {
  @Doc('The first result to return (0: the first).') @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(EVAL_CASES_MAX) offset?: number;
  @Doc(`Results per page, 1 to ${EVAL_RESULTS_PAGE_MAX} (default ${EVAL_RESULTS_PAGE_DEFAULT}); a page also stops at about ${EVAL_RESULTS_PAGE_BYTES / 1000} kB.`)
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(EVAL_RESULTS_PAGE_MAX)
  limit?: number;
}

export class EvalRunsQuery {
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(EVAL_RUNS_LIMIT_MAX) limit?: number;
}

// NATS requests (evaluations.*): the bot in every request; the caller's workspace from its context.
export class EvalBotRequest {
  @IsUUID('all') chatbotId: string;
}
export class EvalCaseIdRequest extends EvalBotRequest {
  @IsUUID('all') caseId: string;
}
export class CreateEvalCaseRequest extends CreateEvalCaseBody {
  @IsUUID('all') chatbotId: string;
}
export class UpdateEvalCaseRequest extends UpdateEvalCaseBody {
  @IsUUID('all') chatbotId: string;
  @IsUUID('all') caseId: string;
}
export class ImportEvalCasesRequest extends ImportEvalCasesBody {
  @IsUUID('all') chatbotId: string;
}
export class ExportEvalCasesRequest extends EvalBotRequest {
  @IsIn(EVAL_IMPORT_FORMATS) format: EvalImportFormat;
}
export class UpdateEvalSettingsRequest extends UpdateEvalSettingsBody {
  @IsUUID('all') chatbotId: string;
}
export class StartEvalRunRequest extends EvalBotRequest {
  @IsOptional() @IsIn(EVAL_TRIGGERS) trigger?: EvalTrigger;
}
export class ListEvalRunsRequest extends EvalBotRequest {
  @IsOptional() @IsInt() @Min(1) @Max(EVAL_RUNS_LIMIT_MAX) limit?: number;
}
export class EvalRunIdRequest extends EvalBotRequest {
  @IsUUID('all') runId: string;
}
export class GetEvalRunRequest extends EvalRunIdRequest {
  @IsOptional() @IsInt() @Min(0) @Max(EVAL_CASES_MAX) offset?: number;
  @IsOptional() @IsInt() @Min(1) @Max(EVAL_RESULTS_PAGE_MAX) limit?: number;
}
export class ListEvalAlertsRequest {}

/**
 * Published (core NATS, fire and forget) by the services whose changes can change answers:
 * knowledge (a document ready, deleted or re-synced), bots (behaviour or model changed). The
 * evaluations service debounces them per bot and starts a run for bots with auto_run on.
 * chatbot_id null: every bot of the workspace (shared knowledge, a connection used by several bots).
 */
export const EVAL_CHANGE_SUBJECT = 'evaluations.change';
export interface EvalChangeNotice {
  tenant_id: string;
  chatbot_id: string | null;
  cause: 'knowledge' | 'behaviour' | 'model';
}

/** console.evaluation.notify (answered by the console): e-mail the owners and admins that a run is under its gate. */
export class EvalNotifyRequest {
  @IsUUID('all') workspaceId: string;
  @IsUUID('all') chatbotId: string;
  @IsString() botName: string;
  @IsUUID('all') runId: string;
  @IsNumber() passRate: number;
  @IsNumber() minPassRate: number;
  @Doc('Questions newly failing since the previous run (at most 20).') @IsArray() @IsString({ each: true }) newlyFailing: string[];
}
export interface EvalNotifyReply {
  sent: number;
}
