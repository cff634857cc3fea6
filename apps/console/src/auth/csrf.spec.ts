import { csrfTokenMatches, originRefusal } from './csrf';

describe('CSRF checks', () => {
  const allowed = new Set(['http://127.0.0.1:3002', 'https://console.example.com']);

  it("accepts only the console's own Origin, or without one Sec-Fetch-Site: same-origin", () => {
    expect(originRefusal({ origin: 'http://127.0.0.1:3002' }, allowed)).toBeNull();
    expect(originRefusal({ origin: 'HTTPS://CONSOLE.EXAMPLE.COM' }, allowed)).toBeNull();
    expect(originRefusal({ origin: 'https://evil.example' }, allowed)).toMatch(/Origin/);
    expect(originRefusal({ origin: 'null' }, allowed)).toMatch(/Origin/);
    expect(originRefusal({ origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' }, allowed)).toMatch(/Origin/);
    expect(originRefusal({ 'sec-fetch-site': 'same-origin' }, allowed)).toBeNull();
    expect(originRefusal({ 'sec-fetch-site': 'same-site' }, allowed)).toMatch(/same-origin/);
    expect(originRefusal({ 'sec-fetch-site': 'cross-site' }, allowed)).toMatch(/same-origin/);
    expect(originRefusal({}, allowed)).toMatch(/no Origin/);
    expect(originRefusal({ origin: ['http://127.0.0.1:3002', 'https://evil.example'] }, allowed)).toMatch(/Origin/);
  });

  it('matches the X-CSRF-Token exactly', () => {
    expect(csrfTokenMatches({ 'x-csrf-token': 'abc' }, 'abc')).toBe(true);
    expect(csrfTokenMatches({ 'x-csrf-token': 'abd' }, 'abc')).toBe(false);
    expect(csrfTokenMatches({ 'x-csrf-token': 'ab' }, 'abc')).toBe(false);
    expect(csrfTokenMatches({}, 'abc')).toBe(false);
    expect(csrfTokenMatches({ 'x-csrf-token': ['abc', 'abc'] }, 'abc')).toBe(false);
  });
});
