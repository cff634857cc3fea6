import { analyticsWindow, percentage } from './analytics.repository';

describe('percentage', () => {
  it('rounds to one decimal place, half up, without float drift', () => {
    expect(percentage(1, 3)).toBe(33.3);
    expect(percentage(2, 3)).toBe(66.7);
    expect(percentage(1, 16)).toBe(6.3); // 6.25
    expect(percentage(1, 8)).toBe(12.5);
    expect(percentage(1, 800)).toBe(0.1); // 0.125
    expect(percentage(3, 3)).toBe(100);
    expect(percentage(0, 7)).toBe(0);
  });

  it('is 0 when there is nothing to divide by', () => {
    expect(percentage(0, 0)).toBe(0);
  });

  it('rounds to other precisions', () => {
    expect(percentage(1, 3, 2)).toBe(33.33);
  });
});

describe('analyticsWindow', () => {
  it('spans whole UTC days, today included', () => {
    expect(analyticsWindow(new Date('2030-06-30T15:00:00Z'), 30)).toEqual({
      firstDay: '2030-06-01',
      lastDay: '2030-06-30',
      start: new Date('2030-06-01T00:00:00Z'),
      end: new Date('2030-07-01T00:00:00Z'),
    });
    expect(analyticsWindow(new Date('2030-03-01T00:00:00Z'), 1)).toMatchObject({ firstDay: '2030-03-01', lastDay: '2030-03-01' });
  });
});
