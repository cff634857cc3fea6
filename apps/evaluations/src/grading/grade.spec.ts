import { gradeReply } from './grade';

describe('gradeReply', () => {
  const reply = (text: string, o: { unanswered?: boolean; handoff?: boolean } = {}) => ({ reply: text, unanswered: o.unanswered ?? false, handoff: o.handoff ?? false });

  it('facts: every fact found, and answered', () => {
    expect(gradeReply('facts', ['10 am', '5 pm'], reply('We are open from 10:00 to 17:00.'))).toEqual({ verdict: 'pass', reason: 'Contains all 2 facts' });
    expect(gradeReply('facts', ['10 am'], reply('We open at 10.00'))).toEqual({ verdict: 'pass', reason: 'Contains the fact' });
    expect(gradeReply('facts', ['10 am', 'Saturday'], reply('We open at 10.00'))).toEqual({ verdict: 'fail', reason: 'Missing fact: "Saturday"' });
    expect(gradeReply('facts', ['a', 'b'], reply('nothing'))).toEqual({ verdict: 'fail', reason: 'Missing facts: "a", "b"' });
    // The facts appear, but the bot counted the question as unanswered (a fallback quoting them).
    expect(gradeReply('facts', ['10 am'], reply('We open at 10 am', { unanswered: true }))).toEqual({ verdict: 'fail', reason: 'Counted as unanswered, but should have answered' });
  });

  it('unanswered: the bot says it does not know', () => {
    expect(gradeReply('unanswered', [], reply('Sorry, I do not know.', { unanswered: true })).verdict).toBe('pass');
    expect(gradeReply('unanswered', [], reply('The boat costs 3 dollars.'))).toEqual({ verdict: 'fail', reason: 'Answered, but should have said it does not know' });
  });

  it('handoff: the bot hands off to a person', () => {
    expect(gradeReply('handoff', [], reply('A person will be with you shortly.', { handoff: true })).verdict).toBe('pass');
    expect(gradeReply('handoff', [], reply('Here is the answer.')).verdict).toBe('fail');
  });
});
