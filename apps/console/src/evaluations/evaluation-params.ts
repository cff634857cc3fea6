import { IsIn, IsUUID } from 'class-validator';
import { BotParams, Doc, EVAL_IMPORT_FORMATS, type EvalImportFormat } from '@sa/contracts';

/* The path and query parameters of the Evaluations routes (the bodies and views are the contract's, libs/contracts/src/evaluations.ts). */

export class EvalCaseParams extends BotParams {
  @IsUUID('all') caseId: string;
}

export class EvalRunParams extends BotParams {
  @IsUUID('all') runId: string;
}

export class EvalExportQuery {
  @Doc('csv: a header row (question, expect, facts separated by "|", language, note); jsonl: one JSON object per line.')
  @IsIn(EVAL_IMPORT_FORMATS)
  format: EvalImportFormat;
}
