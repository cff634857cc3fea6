/** WCAG 2 relative luminance of `#rrggbb`. */
export function luminance(hex: string): number {
  const n = parseInt(hex.slice(1), 16);
  const channel = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel((n >> 16) & 255) + 0.7152 * channel((n >> 8) & 255) + 0.0722 * channel(n & 255);
}

export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The bots service's default theme colour (WIDGET_DEFAULT_COLOR in libs/contracts), until the bot's own arrives. */
export const DEFAULT_COLOR = '#1a5fcc';

export function isHexColor(value: unknown): value is string {
  return typeof value === 'string' && /^#[0-9a-fA-F]{6}$/.test(value);
}

/** The text colour for text on `background`: white or black, whichever contrasts more (≥ 4.5:1 for any background). */
export function readableOn(background: string): '#ffffff' | '#000000' {
  return contrastRatio(background, '#ffffff') >= contrastRatio(background, '#000000') ? '#ffffff' : '#000000';
}

/**
 * The theme colour used as text or a border on the white panel: the colour itself when it reaches
 * 4.5:1 on white, else darkened step by step until it does.
 */
export function accentOnWhite(color: string): string {
  let [r, g, b] = [0, 8, 16].map((s) => (parseInt(color.slice(1), 16) >> (16 - s)) & 255);
  let hex = color.toLowerCase();
  for (let i = 0; i < 20 && contrastRatio(hex, '#ffffff') < 4.5; i++) {
    [r, g, b] = [r, g, b].map((c) => Math.floor(c * 0.85));
    hex = `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
  }
  return hex;
}
