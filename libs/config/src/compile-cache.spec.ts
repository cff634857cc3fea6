import { compileCacheEnv } from './compile-cache';

describe('compileCacheEnv', () => {
  it('points Node at tmp/compile-cache of the checkout when nothing is set', () => {
    expect(compileCacheEnv({}, '/srv/sa')).toEqual({ NODE_COMPILE_CACHE: '/srv/sa/tmp/compile-cache' });
  });

  it("leaves an operator's own setting alone, an empty one (off) included", () => {
    expect(compileCacheEnv({ NODE_COMPILE_CACHE: '/var/cache/node' }, '/srv/sa')).toEqual({});
    expect(compileCacheEnv({ NODE_COMPILE_CACHE: '' }, '/srv/sa')).toEqual({});
  });
});
