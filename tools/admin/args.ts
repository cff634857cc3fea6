/** Minimal `--flag value` / `--flag` / `--no-flag` parser for the admin CLI. */
export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | boolean>;
}

export class UsageError extends Error {}

export function parseArgs(argv: string[], booleanFlags: ReadonlySet<string>): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | boolean>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    let name = arg.slice(2);
    let inline: string | undefined;
    const eq = name.indexOf('=');
    if (eq >= 0) {
      inline = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    if (!name) throw new UsageError(`bad argument "${arg}"`);
    if (flags.has(name) || flags.has(name.replace(/^no-/, ''))) throw new UsageError(`--${name} given twice`);
    if (name.startsWith('no-') && booleanFlags.has(name.slice(3))) {
      flags.set(name.slice(3), false);
    } else if (booleanFlags.has(name)) {
      flags.set(name, inline === undefined ? true : !['false', '0', 'no', 'off'].includes(inline.toLowerCase()));
    } else {
      const value = inline ?? argv[++i];
      if (value === undefined || (inline === undefined && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
    }
  }
  return { positionals, flags };
}

export function takeString(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags.get(name);
  args.flags.delete(name);
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new UsageError(`--${name} needs a value`);
  return v;
}

export function requireString(args: ParsedArgs, name: string): string {
  const v = takeString(args, name);
  if (v === undefined) throw new UsageError(`--${name} is required`);
  return v;
}

export function takeBool(args: ParsedArgs, name: string): boolean | undefined {
  const v = args.flags.get(name);
  args.flags.delete(name);
  return v === undefined ? undefined : Boolean(v);
}

export function takeInt(args: ParsedArgs, name: string): number | undefined {
  const v = takeString(args, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number ≥ 0 (got "${v}")`);
  return Number(v);
}

export function takeList(args: ParsedArgs, name: string): string[] | undefined {
  const v = takeString(args, name);
  if (v === undefined) return undefined;
  return v.split(',').map((s) => s.trim()).filter(Boolean);
}

export function rejectLeftovers(args: ParsedArgs): void {
  const left = [...args.flags.keys()];
  if (left.length) throw new UsageError(`unknown option(s): ${left.map((f) => `--${f}`).join(', ')}`);
}
