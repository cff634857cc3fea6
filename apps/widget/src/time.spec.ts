import { localToIsoWithOffset } from './time';

describe('localToIsoWithOffset', () => {
  it("adds the visitor's UTC offset at that moment", () => {
    const iso = localToIsoWithOffset('2026-12-01T10:00')!;
    expect(iso).toMatch(/^2026-12-01T10:00:00[+-]\d{2}:\d{2}$/);
    // The same instant as the wall-clock time read locally.
    expect(new Date(iso).getTime()).toBe(new Date(2026, 11, 1, 10, 0, 0).getTime());
    expect(localToIsoWithOffset('2026-07-01T23:30:15')).toMatch(/^2026-07-01T23:30:15[+-]\d{2}:\d{2}$/);
  });

  it('refuses what is not a datetime-local value', () => {
    for (const bad of ['', '2026-12-01', '10:00', '2026-12-01 10:00', 'x']) expect(localToIsoWithOffset(bad)).toBeUndefined();
  });
});
