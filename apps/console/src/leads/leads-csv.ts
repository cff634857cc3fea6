import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { LeadView } from '@sa/contracts';

/**
 * The leads CSV export (issue 19): one header row, then one row per lead, produced page by page
 * (each page one leads.lead.list call) so a big workspace never needs one huge NATS reply or
 * the whole list in memory.
 *
 * Formula injection (OWASP "CSV Injection"): a cell starting with `=`, `+`, `-`, `@`, a tab or a
 * carriage return would be run as a formula by spreadsheet programs; such a cell gets a leading
 * apostrophe and is quoted, so it opens as text (a phone number reads '+44…).
 */

export const LEAD_CSV_COLUMNS = [
  'id',
  'created_at',
  'updated_at',
  'status',
  'score',
  'score_band',
  'name',
  'email',
  'phone',
  'company',
  'channel',
  'bot',
  'session_id',
  'intent_category',
  'intent_summary',
  'sentiment',
  'captured_via',
  'qualification',
  'external_user_id',
  'country',
  'region',
  'notes',
] as const;

const FORMULA_START = /^[=+\-@\t\r]/;

/** A cell as it is written: text that a spreadsheet would run is neutralised. */
export function safeCell(value: string): { value: string; quoted: boolean } {
  return FORMULA_START.test(value) ? { value: `'${value}`, quoted: true } : { value, quoted: false };
}

export function leadCsvRow(lead: LeadView, botName: (id: string | null) => string): (string | number)[] {
  const byColumn: Record<(typeof LEAD_CSV_COLUMNS)[number], string | number | null> = {
    id: lead.id,
    created_at: lead.created_at,
    updated_at: lead.updated_at,
    status: lead.status,
    score: lead.score,
    score_band: lead.score_band,
    name: lead.name,
    email: lead.email,
    phone: lead.phone,
    company: lead.company,
    channel: lead.channel,
    bot: botName(lead.chatbot_id),
    session_id: lead.session_id,
    intent_category: lead.intent_category,
    intent_summary: lead.intent_summary,
    sentiment: lead.sentiment,
    captured_via: lead.captured_via,
    qualification: lead.qualification ? JSON.stringify(lead.qualification) : null,
    external_user_id: lead.external_user_id,
    country: lead.country,
    region: lead.region,
    notes: lead.notes,
  };
  return LEAD_CSV_COLUMNS.map((c) => byColumn[c] ?? '');
}

/** A page of leads after `before` (null: the first page); an empty page ends the export. */
export type LeadPager = (before: LeadView | null) => Promise<LeadView[]>;

async function* leadRows(firstPage: LeadView[], next: LeadPager, pageSize: number, botName: (id: string | null) => string): AsyncGenerator<(string | number)[]> {
  yield [...LEAD_CSV_COLUMNS];
  let page = firstPage;
  for (;;) {
    for (const lead of page) yield leadCsvRow(lead, botName);
    if (page.length < pageSize) return;
    page = await next(page[page.length - 1]!);
  }
}

/** The CSV as a stream (UTF-8, CRLF line ends, a BOM so spreadsheet programs read it as UTF-8). */
export function leadsCsv(firstPage: LeadView[], next: LeadPager, pageSize: number, botName: (id: string | null) => string): Readable {
  const stringifier = stringify({
    bom: true,
    record_delimiter: 'windows',
    cast: { string: (value: string) => safeCell(value) },
  });
  // A page that fails half-way destroys the stream: the download ends short instead of looking complete.
  pipeline(Readable.from(leadRows(firstPage, next, pageSize, botName)), stringifier, () => undefined);
  return stringifier;
}
