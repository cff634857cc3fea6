import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { UpdateBookingBody, WidgetBookingBody } from './bookings';
import { ConsoleLeadsQuery } from './records-console';
import { isIsoWithOffset, toValidationIssues } from './validation';

/** Issue 30: impossible calendar dates passed the pattern (JavaScript rolls them over) and PostgreSQL refused them (500). */
export const IMPOSSIBLE_DATE_TIMES = [
  '2026-02-30T10:00:00Z',
  '2026-02-29T10:00:00Z',
  '2026-04-31T10:00:00Z',
  '2026-06-31T10:00:00+02:00',
  '2026-11-31T10:00:00Z',
  '2026-13-01T10:00:00Z',
  '2026-00-10T10:00:00Z',
  '2026-01-00T10:00:00Z',
  '0000-01-01T10:00:00Z',
  '2026-01-01T24:00:00Z',
  '2026-01-01T23:60:00Z',
  '2026-01-01T23:59:60Z',
  '2026-01-01T10:00:00+15:00',
  '2026-01-01T10:00:00+05:60',
  '1900-02-29T10:00:00Z',
];

describe('isIsoWithOffset: real calendar dates only', () => {
  it.each(IMPOSSIBLE_DATE_TIMES)('refuses %s', (value) => {
    expect(isIsoWithOffset(value)).toBe(false);
  });

  it.each(['2024-02-29T10:00:00Z', '2000-02-29T00:00:00Z', '2026-12-31T23:59:59.999Z', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '2026-12-01T10:00+03:00', '2026-01-01T10:00:00-14:00', '2026-01-01T10:00:00+05:30'])(
    'accepts %s',
    (value) => {
      expect(isIsoWithOffset(value)).toBe(true);
    },
  );

  it('refuses what is no date-time with an offset', () => {
    for (const v of ['2026-01-01', '2026-01-01T10:00:00', '2026-1-01T10:00:00Z', ' 2026-01-01T10:00:00Z', 20260101, null]) expect(isIsoWithOffset(v)).toBe(false);
  });
});

describe('the booking contracts refuse an impossible requestedSlot with a validation issue', () => {
  const issues = (cls: new () => object, body: object) => toValidationIssues(validateSync(plainToInstance(cls, body) as object, { whitelist: true, forbidNonWhitelisted: true }), ['body']);

  it.each(IMPOSSIBLE_DATE_TIMES)('%s', (slot) => {
    const update = issues(UpdateBookingBody, { action: 'reschedule', requestedSlot: slot });
    expect(update).toEqual([expect.objectContaining({ path: ['body', 'requestedSlot'] })]);
    const widget = issues(WidgetBookingBody, { sessionId: 's1', name: 'Ada', email: 'ada@example.com', requestedSlot: slot });
    expect(widget).toEqual(expect.arrayContaining([expect.objectContaining({ path: ['body', 'requestedSlot'] })]));
  });
});

describe("the console's leads cursor names a real instant too", () => {
  const LEAD_ID = '00000000-0000-4000-8000-000000000000';
  const issues = (cursor: string) => toValidationIssues(validateSync(plainToInstance(ConsoleLeadsQuery, { cursor }) as object, { whitelist: true, forbidNonWhitelisted: true }), ['query']);

  // Before: the cursor's pattern let these through and the leads service refused `beforeCreatedAt`, a member the caller never sent.
  it.each(IMPOSSIBLE_DATE_TIMES)('%s', (at) => {
    expect(issues(`${at}_${LEAD_ID}`)).toEqual([expect.objectContaining({ path: ['query', 'cursor'] })]);
  });

  it('accepts the cursor of a page', () => {
    expect(issues(`2026-11-28T09:51:45.123Z_${LEAD_ID}`)).toEqual([]);
    expect(issues(`2024-02-29T00:00:00.000000Z_${LEAD_ID}`)).toEqual([]);
  });
});
