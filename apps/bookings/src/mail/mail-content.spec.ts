import { composeMail, formatSlot } from './mail-content';

describe('visitor e-mails', () => {
  const slot = '2027-01-05T14:30:00Z';
  // 14:30 UTC is 15:30 in Berlin (CET) and 23:30 in Tokyo.

  it('formats the slot in the visitor time zone, else UTC', () => {
    expect(formatSlot(slot, 'Europe/Berlin')).toBe('Tuesday, 5 January 2027 at 15:30 CET (Europe/Berlin)');
    expect(formatSlot(slot, 'Europe/Berlin')).toMatch(/15:30/);
    expect(formatSlot(slot, 'Europe/Berlin')).toMatch(/\(Europe\/Berlin\)$/);
    expect(formatSlot(slot, 'Asia/Tokyo')).toMatch(/5 January 2027.*23:30.*\(Asia\/Tokyo\)/);
    expect(formatSlot(slot, null)).toMatch(/14:30.*\(UTC\)$/);
    expect(formatSlot(slot, 'Not/AZone')).toMatch(/14:30.*\(UTC\)$/);
  });

  it('reject carries the comment; cancel carries its comment; reschedule the new time', () => {
    const b = { name: 'Ann', requested_slot: slot, time_zone: 'Europe/Berlin' };
    const rej = composeMail('reject', b, 'Fully booked that week');
    expect(rej.subject).toMatch(/declined/);
    expect(rej.text).toContain('Comment: Fully booked that week');
    expect(composeMail('reject', b).text).not.toContain('Comment');
    expect(composeMail('cancel', b, 'Closed for holidays').text).toContain('Closed for holidays');
    expect(composeMail('reschedule', b).text).toMatch(/15:30.*Europe\/Berlin/);
    expect(composeMail('confirm', b).text).toContain('Hello Ann,');
    expect(composeMail('confirm', { ...b, requested_slot: null }).text).toContain('Your booking is confirmed');
  });
});
