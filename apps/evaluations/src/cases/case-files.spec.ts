import 'reflect-metadata';
import { ValidationFailed } from '@sa/errors';
import { exportCases, joinFacts, parseCases, safeCell, splitFacts } from './case-files';

const failure = (fn: () => unknown): ValidationFailed => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationFailed) return err;
    throw err;
  }
  throw new Error('expected a ValidationFailed');
};

describe('test set files', () => {
  const cases = [
    { question: 'When do you open?', language: 'en', expect: 'facts' as const, facts: ['10 am', 'Monday to Friday'], note: null },
    { question: 'Do you sell boats, "yachts", or ships?', language: null, expect: 'unanswered' as const, facts: [], note: 'line one\nline two' },
    { question: '=HYPERLINK("http://evil.example","click")', language: null, expect: 'facts' as const, facts: ['+1 555', '-3', '@home', 'a|b', 'back\\slash'], note: '@note' },
    { question: 'Ich möchte mit einem Menschen sprechen', language: 'de', expect: 'handoff' as const, facts: [], note: null },
  ];

  it('CSV: exports with a header, quotes what needs it, and imports back to the same cases', () => {
    const csv = exportCases('csv', cases);
    expect(csv.split('\n')[0]).toBe('question,language,expect,facts,note');
    expect(csv).toContain('"Do you sell boats, ""yachts"", or ships?"');
    expect(csv).toContain('"line one\nline two"');
    expect(parseCases('csv', csv)).toEqual(cases);
  });

  it('CSV: a cell that would start a formula gets a leading quote', () => {
    const csv = exportCases('csv', cases);
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")"`);
    expect(csv).toContain("'+1 555 | -3 | @home | a\\|b | back\\\\slash");
    expect(csv).toContain("'@note");
    for (const start of ['=', '+', '-', '@', '\t', '\r']) expect(safeCell(`${start}x`)).toBe(`'${start}x`);
    expect(safeCell('plain')).toBe('plain');
    expect(safeCell("'quoted")).toBe("'quoted");
  });

  it('facts are separated by | with \\| and \\\\ escapes', () => {
    expect(splitFacts('a | b |  | c')).toEqual(['a', 'b', 'c']);
    expect(splitFacts(joinFacts(['x|y', 'z\\', 'w']))).toEqual(['x|y', 'z\\', 'w']);
  });

  it('CSV: columns in any order, language and note optional, blank lines skipped, a BOM ignored', () => {
    const csv = '\uFEFFexpect,question,facts\r\nfacts,How much is the heater?,900 dollars\r\n\r\nunanswered,Boats?,\r\n';
    expect(parseCases('csv', csv)).toEqual([
      { question: 'How much is the heater?', language: null, expect: 'facts', facts: ['900 dollars'], note: null },
      { question: 'Boats?', language: null, expect: 'unanswered', facts: [], note: null },
    ]);
  });

  it('CSV: a bad line rejects the whole import, naming the line', () => {
    const bad = (csv: string) => failure(() => parseCases('csv', csv));
    expect(bad('question,expect,facts\nok?,facts,x\nnope?,maybe,\n').message).toMatch(/^Line 3: expect: /);
    expect(bad('question,expect,facts\nok?,facts,\n').message).toMatch(/^Line 2: expect "facts" needs at least one fact/);
    expect(bad('question,expect,facts\nok?,handoff,x\n').message).toMatch(/^Line 2: expect "handoff" takes no facts/);
    expect(bad('question,expect,facts\n"multi\nline?",facts,x\n   ,facts,y\n').message).toMatch(/^Line 4: question: /);
    expect(bad('question,facts\nq,x\n').message).toMatch(/^Line 1: the header has no "expect" column/);
    expect(bad('question,expect,colour\nq,facts,x\n').message).toMatch(/^Line 1: unknown column "colour"/);
    expect(bad('question,expect,facts\nq,facts,x,extra\n').message).toMatch(/^Line 2: not valid CSV/);
    expect(bad('question,expect,facts\n"q,facts,x\n').message).toMatch(/^Line \d: not valid CSV/);
    expect(bad('question,expect,language,facts\nq,facts,not a language!,x\n').message).toMatch(/^Line 2: language: /);
    expect(bad('question,expect,facts\nSame?,unanswered,\nsame?,unanswered,\n').message).toBe('Line 3: the same question as line 2. Nothing was imported.');
    const err = bad('question,expect,facts\nok?,facts,x\nnope?,maybe,\n');
    expect(err.code).toBe('validation_failed');
    expect(err.issues[0]!.path).toEqual(['body', 'content', 3]);
  });

  it('JSONL: exports one object a line and imports back; blank lines skipped', () => {
    const jsonl = exportCases('jsonl', cases);
    expect(jsonl.split('\n').filter(Boolean)).toHaveLength(4);
    expect(JSON.parse(jsonl.split('\n')[0]!)).toEqual({ question: 'When do you open?', language: 'en', expect: 'facts', facts: ['10 am', 'Monday to Friday'], note: null });
    expect(parseCases('jsonl', `\n${jsonl}\n\n`)).toEqual(cases);
    expect(exportCases('jsonl', [])).toBe('');
  });

  it('JSONL: a bad line rejects the whole import, naming the line', () => {
    const bad = (text: string) => failure(() => parseCases('jsonl', text)).message;
    expect(bad('{"question":"a?","expect":"unanswered"}\n{not json}\n')).toMatch(/^Line 2: not valid JSON/);
    expect(bad('{"question":"a?","expect":"unanswered"}\n[1]\n')).toMatch(/^Line 2: not a JSON object/);
    expect(bad('{"question":"a?","expect":"unanswered","colour":"red"}')).toMatch(/^Line 1: colour: /);
    expect(bad('{"question":"a?","expect":"facts","facts":"x"}')).toMatch(/^Line 1: facts: /);
    expect(bad('\n\n{"question":"","expect":"unanswered"}')).toMatch(/^Line 3: question: /);
    expect(bad(`{"question":"a?","expect":"facts","facts":["${'x'.repeat(501)}"]}`)).toMatch(/^Line 1: facts/);
  });
});
