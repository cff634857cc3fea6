import { DEFAULT_COLOR, accentOnWhite, contrastRatio, isHexColor, readableOn } from './contrast';

describe('contrast (WCAG 2)', () => {
  it('computes the known ratios', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#ffffff', '#ffffff')).toBeCloseTo(1, 5);
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
  });

  it('picks a text colour with at least 4.5:1 on any theme colour', () => {
    for (let i = 0; i < 4096; i += 7) {
      const hex = `#${[(i >> 8) & 15, (i >> 4) & 15, i & 15].map((c) => (c * 17).toString(16).padStart(2, '0')).join('')}`;
      expect(contrastRatio(hex, readableOn(hex))).toBeGreaterThanOrEqual(4.5);
      expect(contrastRatio(accentOnWhite(hex), '#ffffff')).toBeGreaterThanOrEqual(4.5);
    }
    expect(readableOn('#ffeb3b')).toBe('#000000');
    expect(readableOn('#1f6feb')).toBe('#ffffff');
  });

  it('keeps the default colour AA with white text, and accepts only #rrggbb', () => {
    expect(contrastRatio(DEFAULT_COLOR, '#ffffff')).toBeGreaterThanOrEqual(4.5);
    expect(accentOnWhite(DEFAULT_COLOR)).toBe(DEFAULT_COLOR);
    expect(isHexColor('#1F6feb')).toBe(true);
    for (const bad of ['#fff', 'red', '#12345g', 'url(x)', undefined, null]) expect(isHexColor(bad)).toBe(false);
  });
});
