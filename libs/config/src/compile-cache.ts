import * as path from 'node:path';
import type { EnvSource } from './env';

/**
 * NODE_COMPILE_CACHE for an app's process started from a checkout (the launcher, the tests):
 * Node 22.1 and later keep the V8 code of every module they compile in that folder and reuse it
 * at the next start, about a quarter of an app's start time (docs/decisions/operations.md,
 * "Start time"); Node 20 ignores it. An operator's own NODE_COMPILE_CACHE wins (empty turns it
 * off). The image sets /tmp/node-compile-cache (Dockerfile).
 */
export function compileCacheEnv(source: EnvSource, root: string): Record<string, string> {
  if (source['NODE_COMPILE_CACHE'] !== undefined) return {};
  return { NODE_COMPILE_CACHE: path.join(root, 'tmp', 'compile-cache') };
}
