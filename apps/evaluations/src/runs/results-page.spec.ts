import 'reflect-metadata';
import type { EvalResultView } from '@sa/contracts';
import { pageOf } from './runs.service';

const result = (i: number, reply: string): EvalResultView => ({
  case_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  question: `Question ${i}?`,
  language: null,
  expect: 'facts',
  facts: ['x'],
  verdict: 'pass',
  reason: 'Contains every fact',
  reply,
  unanswered: false,
  handoff: false,
  passages: [],
  judge: null,
  previous_verdict: null,
  changed: false,
  latency_ms: 1,
});

describe('a page of results', () => {
  it('stops before the byte budget, counting UTF-8 bytes', () => {
    const rows = Array.from({ length: 10 }, (_, i) => result(i, '語'.repeat(1000)));
    const one = Buffer.byteLength(JSON.stringify(rows[0])) + 1;
    expect(one).toBeGreaterThan(3000);
    expect(pageOf(rows, one * 3)).toHaveLength(3);
    expect(pageOf(rows, one * 3 - 1)).toHaveLength(2);
    expect(pageOf(rows, 10 ** 9)).toHaveLength(10);
  });

  it('always holds at least one result', () => {
    expect(pageOf([result(1, 'x'.repeat(5000))], 10)).toHaveLength(1);
    expect(pageOf([], 10)).toEqual([]);
  });
});
