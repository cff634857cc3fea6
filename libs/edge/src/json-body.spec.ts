import 'reflect-metadata';
import { jsonNestingExceeds } from './json-body';

describe('jsonNestingExceeds', () => {
  const nested = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

  it('counts objects and arrays, the outermost value being level 1', () => {
    expect(jsonNestingExceeds('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(jsonNestingExceeds('{"a":[{"b":1}]}', 2)).toBe(true);
    expect(jsonNestingExceeds('"plain"', 0)).toBe(false);
    expect(jsonNestingExceeds(nested(32), 32)).toBe(false);
    expect(jsonNestingExceeds(nested(33), 32)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonNestingExceeds(`{"a":"${'['.repeat(100)}"}`, 1)).toBe(false);
    expect(jsonNestingExceeds(`{"a":"\\"[[[[","b":"\\\\"}`, 1)).toBe(false);
    expect(jsonNestingExceeds(`{"a":"\\\\","b":[[1]]}`, 2)).toBe(true);
  });

  it('siblings do not add up', () => {
    expect(jsonNestingExceeds(`[${Array(1000).fill('[1]').join(',')}]`, 2)).toBe(false);
  });

  it('scans 3 MB of nesting quickly, stopping at the limit', () => {
    const started = Date.now();
    expect(jsonNestingExceeds('['.repeat(3_000_000), 32)).toBe(true);
    expect(jsonNestingExceeds(`["${'x'.repeat(3_000_000)}"]`, 32)).toBe(false);
    expect(Date.now() - started).toBeLessThan(500);
  });
});
