import 'reflect-metadata';
import type { EvalRunView } from '@sa/contracts';
import { UsageError, parseArgs } from './args';
import { judgeRun, parseMinPass, parseTimeout } from './eval-commands';

const args = (...argv: string[]) => parseArgs(argv, new Set());

const run = (over: Partial<EvalRunView>): EvalRunView => ({
  id: '00000000-0000-4000-8000-000000000001',
  chatbot_id: '00000000-0000-4000-8000-000000000002',
  status: 'completed',
  trigger: 'cli',
  total: 10,
  done: 10,
  passed: 9,
  pass_rate: 0.9,
  min_pass_rate: null,
  below_threshold: false,
  tokens_used: 0,
  token_budget: 100000,
  error: null,
  created_at: '2026-11-29T08:00:00.000Z',
  started_at: '2026-11-29T08:00:00.000Z',
  finished_at: '2026-11-29T08:01:00.000Z',
  ...over,
});

describe('eval run options', () => {
  it('take a pass rate as a fraction or a percentage', () => {
    expect(parseMinPass(args('--min-pass', '0.9'))).toBe(0.9);
    expect(parseMinPass(args('--min-pass', '85%'))).toBeCloseTo(0.85);
    expect(parseMinPass(args('--min-pass', '1'))).toBe(1);
    expect(parseMinPass(args())).toBeUndefined();
  });

  it('refuse a rate outside 0 to 1 and words', () => {
    for (const bad of ['1.5', '-0.1', '120%', 'high', '0,9', '']) expect(() => parseMinPass(args('--min-pass', bad))).toThrow(UsageError);
    expect(() => parseTimeout(args('--timeout', '0'))).toThrow(UsageError);
    expect(parseTimeout(args())).toBe(1800);
  });
});

describe('a run against its threshold', () => {
  it('passes at or over the threshold and fails under it', () => {
    expect(judgeRun(run({ pass_rate: 0.9 }), 0.9)).toBe(true);
    expect(judgeRun(run({ pass_rate: 9 / 10 }), 0.9)).toBe(true);
    expect(judgeRun(run({ pass_rate: 0.8 }), 0.9)).toBe(false);
    expect(judgeRun(run({ pass_rate: 0.1 }), null)).toBe(true);
  });

  it('never passes a run that did not complete', () => {
    expect(judgeRun(run({ status: 'failed', pass_rate: null }), null)).toBe(false);
    expect(judgeRun(run({ status: 'running', pass_rate: null }), 0)).toBe(false);
    expect(judgeRun(run({ status: 'cancelled', pass_rate: 1 }), 0)).toBe(false);
  });
});
