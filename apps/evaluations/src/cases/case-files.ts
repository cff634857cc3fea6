import { CreateEvalCaseBody, EVAL_CASES_MAX, EvalImportFormat, type ValidationIssue } from '@sa/contracts';
import { ValidationFailed } from '@sa/errors';
import { validateDto } from '@sa/messaging';

/** A case as a file holds it (the import and export format). */
export interface CaseLine {
  question: string;
  language: string | null;
  expect: CreateEvalCaseBody['expect'];
  facts: string[];
  note: string | null;
}

export const CSV_COLUMNS = ['question', 'language', 'expect', 'facts', 'note'] as const;
const REQUIRED_COLUMNS = ['question', 'expect'] as const;
/** A spreadsheet runs a cell starting with one of these as a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A cell a spreadsheet shows as text: a leading ' before what would start a formula. */
export function safeCell(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** Undoes safeCell on import: the ' that export put before a formula-like start. */
function unsafeCell(value: string): string {
  return value.length > 1 && value[0] === "'" && FORMULA_START.test(value.slice(1)) ? value.slice(1) : value;
}

/** Facts in one CSV cell, separated by "|" ("\|" is a "|" inside a fact, "\\" a backslash). */
export function joinFacts(facts: readonly string[]): string {
  return facts.map((f) => f.replace(/\\/g, '\\\\').replace(/\|/g, '\\|')).join(' | ');
}

export function splitFacts(cell: string): string[] {
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < cell.length; i++) {
    const c = cell[i];
    if (c === '\\' && (cell[i + 1] === '|' || cell[i + 1] === '\\')) current += cell[++i];
    else if (c === '|') {
      out.push(current);
      current = '';
    } else current += c;
  }
  out.push(current);
  return out.map((f) => f.trim()).filter((f) => f.length > 0);
}

function lineError(line: number, message: string, issues: ValidationIssue[] = []): ValidationFailed {
  const first = issues[0];
  const detail = first ? `${first.path.filter((p) => typeof p === 'string').join('.') || 'line'}: ${first.message}` : '';
  return new ValidationFailed(
    [{ code: first?.code ?? 'invalid', path: ['body', 'content', line], message: `Line ${line}: ${detail || message}` }],
    `Line ${line}: ${detail || message}. Nothing was imported.`,
  );
}

/** One case checked against the contract (CreateEvalCaseBody) and the rule between expect and facts. */
function checkCase(plain: Record<string, unknown>, line: number): CaseLine {
  let body: CreateEvalCaseBody;
  try {
    body = validateDto(CreateEvalCaseBody, plain);
  } catch (err) {
    if (err instanceof ValidationFailed) throw lineError(line, 'not a valid case', err.issues);
    throw err;
  }
  const facts = (body.facts ?? []).map((f) => f.trim());
  if (body.expect === 'facts' && facts.length === 0) throw lineError(line, 'expect "facts" needs at least one fact');
  if (body.expect !== 'facts' && facts.length > 0) throw lineError(line, `expect "${body.expect}" takes no facts`);
  return { question: body.question.trim(), language: body.language ?? null, expect: body.expect, facts, note: body.note?.trim() || null };
}

/**
 * The cases of an import, every line checked first: one bad line rejects the whole import (400,
 * naming the line: the CSV record's line, counting the header as line 1, or the JSONL line).
 * Blank JSONL lines are skipped. A question twice in the file (same language) is refused too.
 */
export function parseCases(format: EvalImportFormat, content: string): CaseLine[] {
  const cases = format === 'csv' ? parseCsv(content) : parseJsonl(content);
  if (cases.length > EVAL_CASES_MAX) throw new ValidationFailed([{ code: 'too_big', path: ['body', 'content'], message: `At most ${EVAL_CASES_MAX} cases` }], `A test set holds at most ${EVAL_CASES_MAX} cases; the file has ${cases.length}`);
  const seen = new Map<string, number>();
  for (const { c, line } of cases) {
    const key = `${c.question.toLowerCase()}\u0000${c.language ?? ''}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) throw lineError(line, `the same question as line ${earlier}`);
    seen.set(key, line);
  }
  return cases.map((x) => x.c);
}

function parseJsonl(content: string): { c: CaseLine; line: number }[] {
  const out: { c: CaseLine; line: number }[] = [];
  content.split(/\r?\n/).forEach((text, i) => {
    const line = i + 1;
    if (!text.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw lineError(line, 'not valid JSON');
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw lineError(line, 'not a JSON object');
    out.push({ c: checkCase(value as Record<string, unknown>, line), line });
  });
  return out;
}

function parseCsv(content: string): { c: CaseLine; line: number }[] {
  const { parse } = require('csv-parse/sync') as typeof import('csv-parse/sync');
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(content.replace(/^\uFEFF/, ''), { bom: true, relax_column_count: false, skip_empty_lines: true, info: true, trim: false }) as unknown as typeof records;
  } catch (err) {
    const e = err as { lines?: number; message?: string };
    throw lineError(e.lines ?? 1, `not valid CSV (${String(e.message ?? '').replace(/^.*?:\s*/, '').slice(0, 200)})`);
  }
  if (!records.length) throw new ValidationFailed([{ code: 'required', path: ['body', 'content'], message: 'The file is empty' }], 'The file is empty: a header row and at least one case are needed');
  const header = records[0]!.record.map((h) => h.trim().toLowerCase());
  for (const name of REQUIRED_COLUMNS) if (!header.includes(name)) throw lineError(1, `the header has no "${name}" column (columns: ${CSV_COLUMNS.join(', ')})`);
  const unknown = header.find((h) => !(CSV_COLUMNS as readonly string[]).includes(h));
  if (unknown !== undefined) throw lineError(1, `unknown column "${unknown}" (columns: ${CSV_COLUMNS.join(', ')})`);
  const dup = header.find((h, i) => header.indexOf(h) !== i);
  if (dup !== undefined) throw lineError(1, `the column "${dup}" appears twice`);
  return records.slice(1).map(({ record, info }) => {
    const cell = (name: string) => {
      const i = header.indexOf(name);
      return i < 0 ? '' : unsafeCell(record[i] ?? '');
    };
    const language = cell('language').trim();
    const note = cell('note');
    const plain: Record<string, unknown> = { question: cell('question'), expect: cell('expect').trim(), facts: splitFacts(cell('facts')) };
    if (language) plain['language'] = language;
    if (note.trim()) plain['note'] = note;
    // info.lines is the line the record ends on; a record's first line is what a person looks for.
    const line = info.lines - (record.join(',').match(/\n/g)?.length ?? 0);
    return { c: checkCase(plain, line), line };
  });
}

/** The set in the import format: CSV (header row, formula-safe cells) or JSONL (one object a line). */
export function exportCases(format: EvalImportFormat, cases: readonly CaseLine[]): string {
  if (format === 'jsonl') {
    return cases.map((c) => JSON.stringify({ question: c.question, language: c.language, expect: c.expect, facts: c.facts, note: c.note })).join('\n') + (cases.length ? '\n' : '');
  }
  const { stringify } = require('csv-stringify/sync') as typeof import('csv-stringify/sync');
  const rows = cases.map((c) => [c.question, c.language ?? '', c.expect, joinFacts(c.facts), c.note ?? ''].map(safeCell));
  return stringify([[...CSV_COLUMNS], ...rows], { quoted_match: /[",\n\r]/, record_delimiter: 'unix' });
}
