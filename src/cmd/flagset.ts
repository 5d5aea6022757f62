/**
 * A typed flag set with the command-line semantics and messages of spf13/pflag as kube-apiserver uses it:
 * `--name=value`, `--name value`, booleans without a separate value, shorthands (`-v=4`, `-v 4`, `-v4`),
 * `--` to end flags, `_` normalised to `-` in names, and help sections printed like cliflag.PrintSections.
 * Hand-written because no npm parser reproduces pflag's syntax and error texts, which operators grep for.
 */
import { isIP } from 'node:net';
import { goQuote } from '../util/goquote.ts';
import { formatGoDuration, parseGoDuration } from '../apimachinery/duration.ts';
import { goParseBool, goParseInt } from '../apimachinery/strconv.ts';

/** A command-line error; its message is one line, worded as pflag/kube-apiserver word it. */
export class FlagError extends Error {
  override name = 'FlagError';
}

/** How one flag is declared. */
export interface FlagSpec<T> {
  name: string;
  shorthand?: string;
  /** Type name shown in help (pflag's `varname`): `string`, `int`, `duration`, `ip`, `Level`; '' for bool. */
  type: string;
  default: T;
  help: string;
  /** Help section, e.g. `Generic` (printed as `Generic flags:`). */
  section: string;
  /**
   * Converts the text given on the command line; throws an Error whose message is Go's. `current` is the value
   * so far, for flags whose repeated use accumulates (`--feature-gates`) rather than replaces.
   */
  parse(text: string, current: T): T;
  /** The value as pflag's `Value.String()` prints it (used by help defaults and /flagz). */
  format(value: T): string;
  /** Value used when the flag is given without one (`--x` for booleans). */
  noOptDefVal?: string;
  /** /flagz shows CLASSIFIED instead of the value. */
  classified?: boolean;
}

/** A declared flag and its current value. */
export class Flag<T = unknown> {
  value: T;
  changed = false;
  constructor(readonly spec: FlagSpec<T>) {
    this.value = spec.default;
  }
  /** The name used in pflag messages: `--name`, or `-s, --name` when a shorthand exists. */
  get displayName(): string {
    return this.spec.shorthand ? `-${this.spec.shorthand}, --${this.spec.name}` : `--${this.spec.name}`;
  }
  set(text: string): void {
    try {
      this.value = this.spec.parse(text, this.value);
    } catch (e) {
      throw new FlagError(`invalid argument ${goQuote(text)} for ${goQuote(this.displayName)} flag: ${(e as Error).message}`);
    }
    this.changed = true;
  }
}

type Common = { shorthand?: string; section: string; classified?: boolean };

/** An ordered set of flags for one command. */
export class FlagSet {
  readonly #byName = new Map<string, Flag>();
  readonly #byShorthand = new Map<string, Flag>();

  constructor(readonly command: string) {}

  add<T>(spec: FlagSpec<T>): Flag<T> {
    if (this.#byName.has(spec.name)) throw new Error(`flag redefined: ${spec.name}`);
    const flag = new Flag(spec);
    this.#byName.set(spec.name, flag as Flag);
    if (spec.shorthand) this.#byShorthand.set(spec.shorthand, flag as Flag);
    return flag;
  }

  string(name: string, def: string, help: string, o: Common): Flag<string> {
    return this.add({ ...o, name, type: 'string', default: def, help, parse: (s) => s, format: (v) => v });
  }

  int(name: string, def: number, help: string, o: Common): Flag<number> {
    return this.add({ ...o, name, type: 'int', default: def, help, parse: (s) => Number(goParseInt(s, 0, 64)), format: String });
  }

  bool(name: string, def: boolean, help: string, o: Common): Flag<boolean> {
    return this.add({ ...o, name, type: '', default: def, help, parse: goParseBool, format: String, noOptDefVal: 'true' });
  }

  /** Milliseconds, written in Go duration syntax. */
  duration(name: string, defMs: number, help: string, o: Common): Flag<number> {
    return this.add({ ...o, name, type: 'duration', default: defMs, help, parse: parseGoDuration, format: formatGoDuration });
  }

  ip(name: string, def: string, help: string, o: Common): Flag<string> {
    const parse = (s: string) => {
      const ip = s.trim();
      if (!isIP(ip)) throw new Error(`failed to parse IP: ${goQuote(s)}`);
      return ip;
    };
    return this.add({ ...o, name, type: 'ip', default: def, help, parse, format: (v) => v });
  }

  /** klog's verbosity level (`strconv.ParseInt(value, 10, 32)`). */
  level(name: string, def: number, help: string, o: Common): Flag<number> {
    return this.add({ ...o, name, type: 'Level', default: def, help, parse: (s) => Number(goParseInt(s, 10, 32)), format: String });
  }

  /** Looks a flag up by long name, normalising `_` to `-` as kube's WordSepNormalizeFunc does. */
  lookup(name: string): Flag | undefined {
    return this.#byName.get(name.replaceAll('_', '-'));
  }

  /** All flags sorted by name, as pflag visits them. */
  flags(): Flag[] {
    return [...this.#byName.values()].sort((a, b) => (a.spec.name < b.spec.name ? -1 : a.spec.name > b.spec.name ? 1 : 0));
  }

  /** Parses argv (without node and script), sets flag values and returns the positional arguments. */
  parse(argv: readonly string[]): string[] {
    const args = [...argv];
    const positional: string[] = [];
    while (args.length > 0) {
      const s = args.shift()!;
      if (s.length < 2 || s[0] !== '-') positional.push(s);
      else if (s === '--') return positional.concat(args);
      else if (s[1] === '-') this.#parseLong(s, args);
      else this.#parseShort(s, args);
    }
    return positional;
  }

  #parseLong(s: string, args: string[]): void {
    const body = s.slice(2);
    if (body === '' || body[0] === '-' || body[0] === '=') throw new FlagError(`bad flag syntax: ${s}`);
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    const flag = this.lookup(name);
    if (!flag) throw new FlagError(`unknown flag: --${name}`);
    let value: string;
    if (eq >= 0) value = body.slice(eq + 1);
    else if (flag.spec.noOptDefVal !== undefined) value = flag.spec.noOptDefVal;
    else if (args.length > 0) value = args.shift()!;
    else throw new FlagError(`flag needs an argument: ${s}`);
    flag.set(value);
  }

  #parseShort(s: string, args: string[]): void {
    let shorthands = s.slice(1);
    while (shorthands.length > 0) {
      const c = shorthands[0]!;
      const flag = this.#byShorthand.get(c);
      if (!flag) throw new FlagError(`unknown shorthand flag: '${c}' in -${shorthands}`);
      let value: string;
      let rest = '';
      if (shorthands.length > 2 && shorthands[1] === '=') value = shorthands.slice(2);
      else if (flag.spec.noOptDefVal !== undefined) {
        value = flag.spec.noOptDefVal;
        rest = shorthands.slice(1);
      } else if (shorthands.length > 1) value = shorthands.slice(1);
      else if (args.length > 0) value = args.shift()!;
      else throw new FlagError(`flag needs an argument: '${c}' in -${shorthands}`);
      flag.set(value);
      shorthands = rest;
    }
  }

  /** Help text of the flags, one block per section in the given order (`<Section> flags:`). */
  sectionUsages(order: readonly string[]): string {
    const sections = [...order, ...new Set(this.flags().map((f) => f.spec.section).filter((s) => !order.includes(s)))];
    let out = '';
    for (const section of sections) {
      const flags = this.flags().filter((f) => f.spec.section === section);
      if (flags.length > 0) out += `\n${section} flags:\n\n${flagUsages(flags)}`;
    }
    return out;
  }
}

/**
 * pflag's FlagUsages: name and type, then the help aligned in one column (continuation lines of a multi-line
 * help indented to that column), then a non-zero default.
 */
function flagUsages(flags: Flag[]): string {
  const lines = flags.map((f) => {
    const s = f.spec;
    let left = s.shorthand ? `  -${s.shorthand}, --${s.name}` : `      --${s.name}`;
    if (s.type) left += ` ${s.type}`;
    if (s.noOptDefVal !== undefined && !(s.type === '' && s.noOptDefVal === 'true')) left += `[=${s.noOptDefVal}]`;
    const def = s.format(s.default);
    let right = s.help;
    if (!['', '0', '0s', 'false', '[]'].includes(def)) right += s.type === 'string' ? ` (default ${goQuote(def)})` : ` (default ${def})`;
    return [left, right] as const;
  });
  const width = Math.max(...lines.map(([left]) => left.length));
  const indent = ' '.repeat(width + 2);
  return lines.map(([left, right]) => `${left}${' '.repeat(width - left.length + 2)}${right.replaceAll('\n', '\n' + indent)}\n`).join('');
}
