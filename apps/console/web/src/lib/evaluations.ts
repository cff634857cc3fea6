import type { EvalCase, EvalExpectation, EvalResult, EvalRun } from '../api/types';

// The contract's limits (libs/contracts/src/evaluations.ts), for the fields' counters.
export const EVAL_QUESTION_MAX = 2000;
export const EVAL_FACT_MAX = 500;
export const EVAL_FACTS_MAX = 20;
export const EVAL_LANGUAGE_MAX = 35;

export const EXPECTATION_OPTIONS: readonly { value: EvalExpectation; label: string; description: string }[] = [
  { value: 'facts', label: 'Contains facts', description: 'The reply contains every fact listed.' },
  { value: 'unanswered', label: 'Counted unanswered', description: 'The bot says it does not know (nothing in the knowledge answers it).' },
  { value: 'handoff', label: 'Hands off', description: 'The bot hands the conversation to a person.' },
];

export const asExpectation = (v: string): EvalExpectation => (v === 'unanswered' || v === 'handoff' ? v : 'facts');

/** 0.8 → "80%", 0.875 → "87.5%". */
export function formatPercent(rate: number): string {
  return `${Math.round(rate * 1000) / 10}%`;
}

/** Facts typed one per line: blank lines dropped, each trimmed. */
export function factsOf(text: string): string[] {
  return text
    .split('\n')
    .map((f) => f.trim())
    .filter((f) => f !== '');
}

export function expectationText(c: Pick<EvalCase, 'expect' | 'facts'>): string {
  if (c.expect === 'unanswered') return 'Counted unanswered';
  if (c.expect === 'handoff') return 'Hands off to a person';
  return 'Contains';
}

export const VERDICT_TEXT: Record<EvalResult['verdict'], string> = { pass: 'Pass', fail: 'Fail', error: 'Error' };
export const VERDICT_BADGE: Record<EvalResult['verdict'], string> = { pass: 'badge--succeeded', fail: 'badge--failed', error: 'badge--pending' };

/** "Newly failing" / "Newly passing" / "Changed" for a changed result, null otherwise. */
export function changeText(r: Pick<EvalResult, 'changed' | 'verdict' | 'previous_verdict'>): string | null {
  if (!r.changed) return null;
  if (r.verdict === 'pass') return 'Newly passing';
  if (r.previous_verdict === 'pass' || r.previous_verdict === null) return 'Newly failing';
  return r.verdict === 'error' ? 'Now an error' : 'Now failing';
}

export const RUN_STATUS_TEXT: Record<EvalRun['status'], string> = { queued: 'Queued', running: 'Running', completed: 'Completed', failed: 'Failed', cancelled: 'Cancelled' };

export const TRIGGER_TEXT: Record<EvalRun['trigger'], string> = {
  manual: 'Run now',
  cli: 'Command line',
  knowledge: 'Knowledge changed',
  behaviour: 'Behaviour changed',
  model: 'Model changed',
};

/** The import's format from the file's name (.jsonl / .ndjson: JSONL; anything else: CSV). */
export function formatOfFile(name: string): 'csv' | 'jsonl' {
  return /\.(jsonl|ndjson)$/i.test(name) ? 'jsonl' : 'csv';
}
