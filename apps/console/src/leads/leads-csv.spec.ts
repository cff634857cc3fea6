import { parse } from 'csv-parse/sync';
import type { LeadView } from '@sa/contracts';
import { LEAD_CSV_COLUMNS, leadsCsv, safeCell } from './leads-csv';

const lead = (i: number, over: Partial<LeadView> = {}): LeadView => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  tenant_id: '00000000-0000-4000-8000-000000000000',
  chatbot_id: null,
  session_id: `s-${i}`,
  name: null,
  email: null,
  phone: null,
  external_user_id: null,
  company: null,
  intent_category: null,
  intent_summary: null,
  score: i,
  score_band: 'cold',
  sentiment: null,
  qualification: null,
  status: 'new',
  captured_via: 'conversational',
  confidence: null,
  notified_at: null,
  asked_contact_at: null,
  notes: null,
  country: null,
  region: null,
  channel: 'api',
  created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  updated_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  ...over,
});

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

describe('leads CSV', () => {
  it('cells that a spreadsheet would run as formulas get an apostrophe and quotes; others stay as they are', () => {
    for (const v of ['=HYPERLINK("http://x")', '+44 20 7946 0958', '-2+3', '@SUM(A1)', '\tx', '\rx']) expect(safeCell(v)).toEqual({ value: `'${v}`, quoted: true });
    for (const v of ['Ada', 'a=b', '', 'jane@acme.io']) expect(safeCell(v)).toEqual({ value: v, quoted: false });
  });

  it('pages through every lead (asking for the next page after the last lead of each full page) and parses back', async () => {
    const all = Array.from({ length: 7 }, (_, i) => lead(i + 1, i === 0 ? { name: '=cmd|" /C calc"!A0', company: 'Acme, "Ltd"\nLondon', qualification: { budget: '10k' }, chatbot_id: '11111111-1111-4111-8111-111111111111' } : {}));
    const asked: (string | null)[] = [];
    const pageSize = 3;
    const next = async (before: LeadView | null) => {
      asked.push(before?.id ?? null);
      const from = all.findIndex((l) => l.id === before!.id) + 1;
      return all.slice(from, from + pageSize);
    };
    const csv = await text(leadsCsv(all.slice(0, pageSize), next, pageSize, (id) => (id ? 'Front desk' : '')));
    expect(csv.startsWith('\uFEFF')).toBe(true);
    const rows: string[][] = parse(csv.slice(1), { relax_column_count: false });
    expect(rows[0]).toEqual([...LEAD_CSV_COLUMNS]);
    expect(rows.slice(1).map((r) => r[0])).toEqual(all.map((l) => l.id));
    expect(asked).toEqual([all[2]!.id, all[5]!.id]);
    const first = Object.fromEntries(LEAD_CSV_COLUMNS.map((c, i) => [c, rows[1]![i]]));
    expect(first).toMatchObject({ name: `'=cmd|" /C calc"!A0`, company: 'Acme, "Ltd"\nLondon', qualification: '{"budget":"10k"}', bot: 'Front desk', score: '1', email: '' });
  });

  it('a page that fails ends the stream with an error, not a file that looks complete', async () => {
    const full = [lead(1), lead(2)];
    await expect(text(leadsCsv(full, async () => Promise.reject(new Error('leads unavailable')), 2, () => ''))).rejects.toThrow('leads unavailable');
  });
});
