import type { EvalExpectation, EvalVerdict } from '@sa/contracts';
import { missingFacts } from './fact-match';

export interface GradedReply {
  verdict: Exclude<EvalVerdict, 'error'>;
  /** Why, for people. */
  reason: string;
}

export interface ReplyFacts {
  reply: string;
  unanswered: boolean;
  handoff: boolean;
}

const quoted = (facts: string[]) => facts.map((f) => `"${f}"`).join(', ');

/**
 * The rule-based verdict of one reply (issue 33): `facts` passes when the reply contains every
 * fact (fact-match.ts) and does not count as unanswered; `unanswered` when the bot said it does not
 * know; `handoff` when it handed off to a person.
 */
export function gradeReply(expect: EvalExpectation, facts: readonly string[], r: ReplyFacts): GradedReply {
  switch (expect) {
    case 'facts': {
      if (r.unanswered) return { verdict: 'fail', reason: 'Counted as unanswered, but should have answered' };
      const missing = missingFacts(r.reply, facts);
      if (missing.length) return { verdict: 'fail', reason: `Missing ${missing.length === 1 ? 'fact' : 'facts'}: ${quoted(missing)}` };
      return { verdict: 'pass', reason: facts.length === 1 ? 'Contains the fact' : `Contains all ${facts.length} facts` };
    }
    case 'unanswered':
      return r.unanswered ? { verdict: 'pass', reason: 'Said it does not know' } : { verdict: 'fail', reason: 'Answered, but should have said it does not know' };
    case 'handoff':
      return r.handoff ? { verdict: 'pass', reason: 'Handed off to a person' } : { verdict: 'fail', reason: 'Did not hand off to a person' };
  }
}
