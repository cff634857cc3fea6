import { ParsedArgs, UsageError, parseArgs, rejectLeftovers, requireString, takeBool, takeInt, takeList, takeString } from './args';

const BOOLS = new Set(['all', 'enterprise-api', 'json']);

function usageError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('expected a UsageError');
}

function parsed(flags: Record<string, string | boolean>): ParsedArgs {
  return { positionals: [], flags: new Map(Object.entries(flags)) };
}

describe('parseArgs', () => {
  it('separates positionals from flags and keeps their order', () => {
    const args = parseArgs(['workspace', 'create', '--name', 'Acme', 'extra'], BOOLS);
    expect(args.positionals).toEqual(['workspace', 'create', 'extra']);
    expect([...args.flags]).toEqual([['name', 'Acme']]);
  });

  it('takes the next argument as the value of a non-boolean flag', () => {
    expect([...parseArgs(['--name', 'Acme Inc', '--plan', 'scale'], BOOLS).flags]).toEqual([
      ['name', 'Acme Inc'],
      ['plan', 'scale'],
    ]);
    // A value may start with a single dash.
    expect(parseArgs(['--offset', '-5'], BOOLS).flags.get('offset')).toBe('-5');
  });

  it('accepts --x=value, including values with = and values that look like flags', () => {
    const args = parseArgs(['--name=Acme', '--filter=a=b', '--note=--not-a-flag', '--empty='], BOOLS);
    expect(args.flags.get('name')).toBe('Acme');
    expect(args.flags.get('filter')).toBe('a=b');
    expect(args.flags.get('note')).toBe('--not-a-flag');
    expect(args.flags.get('empty')).toBe('');
  });

  it('sets boolean flags without consuming the next argument', () => {
    const args = parseArgs(['--all', 'positional', '--json'], BOOLS);
    expect(args.flags.get('all')).toBe(true);
    expect(args.flags.get('json')).toBe(true);
    expect(args.positionals).toEqual(['positional']);
  });

  it('turns a boolean off with --no-x', () => {
    expect(parseArgs(['--no-enterprise-api'], BOOLS).flags.get('enterprise-api')).toBe(false);
    expect(parseArgs(['--no-enterprise-api'], BOOLS).flags.has('no-enterprise-api')).toBe(false);
  });

  it.each([
    ['false', false],
    ['0', false],
    ['no', false],
    ['true', true],
    ['1', true],
    ['yes', true],
  ])('reads --all=%s as %s', (inline, expected) => {
    expect(parseArgs([`--all=${inline}`], BOOLS).flags.get('all')).toBe(expected);
  });

  it('treats --no-x of a flag that is not boolean as a flag of its own', () => {
    expect(parseArgs(['--no-name', 'x'], BOOLS).flags.get('no-name')).toBe('x');
    expect(usageError(() => parseArgs(['--no-name'], BOOLS))).toBe('--no-name needs a value');
  });

  it.each([
    [['--name', 'a', '--name', 'b'], '--name given twice'],
    [['--name=a', '--name', 'b'], '--name given twice'],
    [['--all', '--all'], '--all given twice'],
    [['--all', '--no-all'], '--no-all given twice'],
    [['--no-all', '--all'], '--all given twice'],
    [['--no-all', '--all=false'], '--all given twice'],
  ])('refuses duplicates: %j', (argv, message) => {
    expect(usageError(() => parseArgs(argv, BOOLS))).toBe(message);
  });

  it.each([
    [['--name'], '--name needs a value'],
    [['--name', '--plan', 'scale'], '--name needs a value'],
    [['--plan', 'scale', '--name'], '--name needs a value'],
  ])('refuses a missing value: %j', (argv, message) => {
    expect(usageError(() => parseArgs(argv, BOOLS))).toBe(message);
  });

  it.each([['--'], ['--=x']])('refuses %s', (arg) => {
    expect(usageError(() => parseArgs([arg], BOOLS))).toBe(`bad argument "${arg}"`);
  });

  it('parses nothing into nothing', () => {
    const args = parseArgs([], BOOLS);
    expect(args.positionals).toEqual([]);
    expect(args.flags.size).toBe(0);
  });
});

describe('take* helpers', () => {
  it('takeString returns and removes the value, undefined when absent', () => {
    const args = parsed({ name: 'Acme' });
    expect(takeString(args, 'name')).toBe('Acme');
    expect(args.flags.has('name')).toBe(false);
    expect(takeString(args, 'name')).toBeUndefined();
  });

  it('takeString refuses a boolean where a value is needed', () => {
    const args = parseArgs(['--all'], BOOLS);
    expect(usageError(() => takeString(args, 'all'))).toBe('--all needs a value');
  });

  it('requireString refuses a missing flag', () => {
    expect(requireString(parsed({ id: 'x' }), 'id')).toBe('x');
    expect(usageError(() => requireString(parsed({}), 'id'))).toBe('--id is required');
  });

  it('takeBool returns the boolean, undefined when absent', () => {
    const args = parseArgs(['--all', '--no-json'], BOOLS);
    expect(takeBool(args, 'all')).toBe(true);
    expect(takeBool(args, 'json')).toBe(false);
    expect(takeBool(args, 'enterprise-api')).toBeUndefined();
    expect(args.flags.size).toBe(0);
  });

  it.each([
    ['0', 0],
    ['7', 7],
    ['007', 7],
    ['25000', 25000],
  ])('takeInt reads %j as %i', (raw, n) => {
    const args = parsed({ n: raw });
    expect(takeInt(args, 'n')).toBe(n);
    expect(args.flags.has('n')).toBe(false);
  });

  it.each(['-1', '-0', '1.5', '1e3', 'abc', '12abc', '', ' 5', '0x10', '+3'])('takeInt refuses %j', (raw) => {
    expect(usageError(() => takeInt(parsed({ n: raw }), 'n'))).toBe(`--n must be a whole number ≥ 0 (got "${raw}")`);
  });

  it('takeInt is undefined when absent and refuses a boolean', () => {
    expect(takeInt(parsed({}), 'n')).toBeUndefined();
    expect(usageError(() => takeInt(parseArgs(['--all'], BOOLS), 'all'))).toBe('--all needs a value');
  });

  it('takeList splits on commas and drops empty items', () => {
    expect(takeList(parsed({ scopes: 'bots:read, kb:read,,  leads:read ,' }), 'scopes')).toEqual(['bots:read', 'kb:read', 'leads:read']);
    expect(takeList(parsed({ scopes: ' , ' }), 'scopes')).toEqual([]);
    expect(takeList(parsed({}), 'scopes')).toBeUndefined();
  });
});

describe('rejectLeftovers', () => {
  it('passes when every flag was taken', () => {
    const args = parseArgs(['cmd', '--name', 'x', '--all'], BOOLS);
    takeString(args, 'name');
    takeBool(args, 'all');
    expect(() => rejectLeftovers(args)).not.toThrow();
  });

  it('names every flag nobody took', () => {
    const args = parseArgs(['--name', 'x', '--colour', 'red', '--no-json', '--size=3'], BOOLS);
    takeString(args, 'name');
    expect(usageError(() => rejectLeftovers(args))).toBe('unknown option(s): --colour, --json, --size');
  });

  it('ignores positionals', () => {
    expect(() => rejectLeftovers(parseArgs(['a', 'b'], BOOLS))).not.toThrow();
  });
});
