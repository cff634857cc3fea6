import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Where .ci/run puts promtool (extracted from Debian's prometheus package) when none is installed. */
export const CI_PROMTOOL = path.resolve(__dirname, '..', '..', 'tmp', 'tools', 'promtool');

/**
 * The promtool binary to use: $PROMTOOL, the copy .ci/run provides (tmp/tools/promtool), or one on
 * PATH; null when there is none. In CI (CI=true) a missing promtool is an error, not a reason to
 * check less.
 */
export function findPromtool(): string | null {
  const given = process.env['PROMTOOL'];
  if (given) {
    if (!fs.existsSync(given)) throw new Error(`PROMTOOL=${given} does not exist`);
    return given;
  }
  if (fs.existsSync(CI_PROMTOOL)) return CI_PROMTOOL;
  const which = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  if (process.env['CI'] === 'true') throw new Error(`promtool is missing: .ci/run installs it at ${CI_PROMTOOL} (or set PROMTOOL)`);
  return null;
}

/** `promtool check metrics` over an exposition: its exit status and what it printed. */
export function promtoolCheckMetrics(promtool: string, exposition: string): { status: number | null; output: string } {
  const r = spawnSync(promtool, ['check', 'metrics'], { input: exposition, encoding: 'utf8', timeout: 30000 });
  if (r.error) throw r.error;
  return { status: r.status, output: `${r.stdout}${r.stderr}`.trim() };
}
