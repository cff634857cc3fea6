import 'reflect-metadata';
import { parsePgTextArray } from './postgres-vector-store';

describe('parsePgTextArray (pg_stats arrays in text form)', () => {
  it('reads plain, quoted and escaped elements', () => {
    expect(parsePgTextArray('{a,bb,ccc}')).toEqual(['a', 'bb', 'ccc']);
    expect(parsePgTextArray('{"a b","say \\"hi\\"",密码,"x,y"}')).toEqual(['a b', 'say "hi"', '密码', 'x,y']);
    expect(parsePgTextArray('{0.5,0.25,1e-05}').map(Number)).toEqual([0.5, 0.25, 0.00001]);
    expect(parsePgTextArray('{}')).toEqual([]);
  });
});
