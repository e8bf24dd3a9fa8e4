/**
 * The command lines' flags as data: each flag is declared once (its value's name, default, help
 * lines and the check of its value), commands put groups of them together (groups.ts), and one
 * reader — `node:util` `parseArgs` — turns an argv into checked values, while `usageText` writes
 * the help from the same declarations. docling's `cli/main.py` (one `typer.Option(..., help=…)`
 * per flag) is the shape; the hand-written argv switches of each command are what it replaced.
 *
 * The reading is strict, in Folio's words: an unknown flag, a flag without its value, a switch
 * given a value and a bad value are each a `UsageError` (kind `input`, exit code 2), reported for
 * the first of them in the order typed. `parseArgs` runs with `tokens` and `strict: false` so the
 * checks see the flags in argv order and the messages stay Folio's ("unknown option --x") rather
 * than Node's.
 */
import { parseArgs } from 'node:util';
import { UsageError } from '../errors';

/** One flag. `V` is its value's type, `D` its default's (`undefined` when it has none). */
export interface Flag<V, D extends V | undefined = V | undefined> {
  /** One letter: `o` makes `-o` the same as the flag. */
  readonly short?: string;
  /** The value's name in the help (`<path>`); absent for a switch, which takes no value. */
  readonly arg?: string;
  /** The help: the first line beside the flag, the others below it. */
  readonly help: readonly string[];
  /** The value when the flag is not given. */
  readonly default: D;
  /**
   * Checks one typed value and returns what the command gets; throws a `UsageError` saying what
   * to type. `prev` is the value so far, for a flag that may be repeated (it appends).
   */
  readonly read: (text: string, flag: string, prev: V | undefined) => V;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type FlagTable = Record<string, Flag<any, any>>;

/** What a table's flags come back as: their value, or their default (`undefined` if none). */
export type FlagValues<T extends FlagTable> = {
  -readonly [K in keyof T]: T[K] extends Flag<infer V, infer D> ? (undefined extends D ? V | undefined : V) : never;
};

/** The same flag with this command's default and help (its check stays the declared one). */
export function refine<V, D extends V | undefined>(
  flag: Flag<V, V | undefined>,
  change: { default: D; help?: readonly string[] },
): Flag<V, D> {
  return { ...flag, help: change.help ?? flag.help, default: change.default };
}

/** Some flags of a group, under their declared names. */
export function pick<T extends FlagTable, K extends keyof T>(group: T, ...names: K[]): Pick<T, K> {
  return Object.fromEntries(names.map((n) => [n, group[n]])) as Pick<T, K>;
}

/** Whether the command line asks for the help (anywhere, before any other check). */
export function wantsHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

/**
 * Reads `argv` against `table`. Positional arguments are returned in order; with
 * `positionals: false` the first one is refused as an unknown option (the service and the
 * worker take none).
 */
export function parseFlags<T extends FlagTable>(
  table: T,
  argv: readonly string[],
  opts: { positionals?: boolean } = {},
): { values: FlagValues<T>; positionals: string[] } {
  const options = Object.fromEntries(
    Object.entries(table).map(([name, f]) => [
      name,
      { type: f.arg ? ('string' as const) : ('boolean' as const), ...(f.short ? { short: f.short } : {}) },
    ]),
  );
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  const values: Record<string, unknown> = Object.fromEntries(Object.entries(table).map(([n, f]) => [n, f.default]));
  const given = new Set<string>();
  const positionals: string[] = [];
  for (const t of tokens) {
    if (t.kind === 'option-terminator') continue;
    if (t.kind === 'positional') {
      if (opts.positionals === false) throw new UsageError(`unknown option ${t.value}`);
      positionals.push(t.value);
      continue;
    }
    const flag = Object.hasOwn(table, t.name) ? table[t.name] : undefined;
    if (!flag) throw new UsageError(`unknown option ${argv[t.index]}`);
    const name = `--${t.name}`;
    if (!flag.arg) {
      if (t.value !== undefined) throw new UsageError(`${name} takes no value`);
      values[t.name] = flag.read('', name, undefined);
      continue;
    }
    // A flag followed by another (`--output --force`) lacks its value; `--output=--x` gives one.
    if (t.value === undefined || (!t.inlineValue && t.value.startsWith('--')))
      throw new UsageError(`${name} needs a value`);
    values[t.name] = flag.read(t.value, name, given.has(t.name) ? values[t.name] : undefined);
    given.add(t.name);
  }
  return { values: values as FlagValues<T>, positionals };
}

/**
 * The help of a command: `head`, one entry per flag in the table's order (the flag and its
 * value's name, then its help lines from column `2 + width`), and `tail`.
 */
export function usageText(head: string, table: FlagTable, tail = '', width = 24): string {
  const lines = [head, ''];
  for (const [name, f] of Object.entries(table)) {
    const left = `${f.short ? `-${f.short}, ` : '    '}--${name}${f.arg ? ` ${f.arg}` : ''}`;
    const [first = '', ...rest] = f.help;
    lines.push(`  ${left.length < width ? left.padEnd(width) : `${left}  `}${first}`.trimEnd());
    for (const more of rest) lines.push(`${' '.repeat(2 + width)}${more}`);
  }
  if (tail) lines.push(tail);
  return lines.join('\n');
}

// ---- Value checks: the messages users see when a value is wrong. ----

/** A switch: present or not. */
export function switchFlag(help: readonly string[]): Flag<boolean, boolean> {
  return { help, default: false, read: () => true };
}

/** A flag with a value, read (checked and converted) by `read`; no default. */
export function valueFlag<V>(arg: string, help: readonly string[], read: Flag<V>['read'], short?: string): Flag<V> {
  return { arg, help, ...(short ? { short } : {}), default: undefined, read };
}

/** Any text (a path, a name, a key). */
export function textFlag(arg: string, help: readonly string[], short?: string): Flag<string> {
  return valueFlag(arg, help, (text) => text, short);
}

/** One of `choices`: "--format must be md, doctags or json, not "x"". */
export function choiceFlag<const C extends string>(
  arg: string,
  choices: readonly C[],
  help: readonly string[],
): Flag<C> {
  const list = `${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]}`;
  return {
    arg,
    help,
    default: undefined,
    read: (text, flag) => {
      if (!(choices as readonly string[]).includes(text))
        throw new UsageError(`${flag} must be ${list}, not "${text}"`);
      return text as C;
    },
  };
}

/** A whole number from `min` to `max`: "--jobs takes a whole number from 1 to 64". */
export function wholeNumberFlag(arg: string, min: number, max: number, help: readonly string[]): Flag<number> {
  return {
    arg,
    help,
    default: undefined,
    read: (text, flag) => {
      const n = Number(text);
      if (!Number.isInteger(n) || n < min || n > max)
        throw new UsageError(`${flag} takes a whole number from ${min}${max === Infinity ? ' up' : ` to ${max}`}`);
      return n;
    },
  };
}

/** A number from `min` to `max` (fractions allowed): "--scale takes a number from 0.25 to 8". */
export function numberFlag(arg: string, min: number, max: number, help: readonly string[]): Flag<number> {
  return {
    arg,
    help,
    default: undefined,
    read: (text, flag) => {
      const n = Number(text);
      if (!Number.isFinite(n) || n < min || n > max)
        throw new UsageError(`${flag} takes a number from ${min} to ${max}`);
      return n;
    },
  };
}
