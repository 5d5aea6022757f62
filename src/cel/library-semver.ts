/**
 * The Kubernetes semver library (upstream `apiserver/pkg/cel/library/semverlib.go`, version 1, in the base environment
 * since 1.33), over blang/semver v4's parsing and ordering, which upstream uses; error texts are blang's:
 *
 * - `semver(string)`, `semver(string, bool)` (true: normalize first — drop a leading `v`, leading zeroes, fill a
 *   missing minor or patch with 0), `isSemver(string)`, `isSemver(string, bool)`;
 * - `<Semver>.major()`, `.minor()`, `.patch()`, `.isGreaterThan(Semver)`, `.isLessThan(Semver)`, `.compareTo(Semver)`
 *   (build metadata is ignored by the order, pre-releases sort before their release, as SemVer 2.0 says).
 */
import type { Environment } from '@marcbachmann/cel-js';
import { charge, traversalCost } from './cost.ts';
import { CELFunctionError } from './library.ts';

/** A parsed version (cel type `kubernetes.Semver`). */
export class Semver {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    /** Pre-release identifiers: numbers (bigint) or strings. */
    readonly pre: readonly (bigint | string)[],
    readonly build: readonly string[],
  ) {}
}

const NUMBERS = /^[0-9]+$/;
const ALPHANUM = /^[0-9A-Za-z-]+$/;
const MAX_UINT64 = (1n << 64n) - 1n;
const hasLeadingZeroes = (s: string) => s.length > 1 && s[0] === '0';
const goQuote = (s: string) => JSON.stringify(s);

function parseUint(s: string): bigint {
  const n = BigInt(s);
  if (n > MAX_UINT64) throw new Error(`strconv.ParseUint: parsing ${goQuote(s)}: value out of range`);
  return n;
}

function number(s: string, what: 'major' | 'minor' | 'patch', title: string): bigint {
  if (!NUMBERS.test(s)) throw new Error(`Invalid character(s) found in ${what} number ${goQuote(s)}`);
  if (hasLeadingZeroes(s)) throw new Error(`${title} number must not contain leading zeroes ${goQuote(s)}`);
  return parseUint(s);
}

/** blang/semver v4 Parse, with its texts. */
export function parseSemver(s: string): Semver {
  if (s.length === 0) throw new Error('Version string empty');
  const parts = splitN(s, '.', 3);
  if (parts.length !== 3) throw new Error('No Major.Minor.Patch elements found');
  const major = number(parts[0]!, 'major', 'Major');
  const minor = number(parts[1]!, 'minor', 'Minor');
  let patchStr = parts[2]!;
  let build: string[] = [];
  let pre: string[] = [];
  const b = patchStr.indexOf('+');
  if (b >= 0) {
    build = patchStr.slice(b + 1).split('.');
    patchStr = patchStr.slice(0, b);
  }
  const p = patchStr.indexOf('-');
  if (p >= 0) {
    pre = patchStr.slice(p + 1).split('.');
    patchStr = patchStr.slice(0, p);
  }
  const patch = number(patchStr, 'patch', 'Patch');
  const prerelease = pre.map((id) => {
    if (id.length === 0) throw new Error('Prerelease is empty');
    if (NUMBERS.test(id)) {
      if (hasLeadingZeroes(id)) throw new Error(`Numeric PreRelease version must not contain leading zeroes ${goQuote(id)}`);
      return parseUint(id);
    }
    if (!ALPHANUM.test(id)) throw new Error(`Invalid character(s) found in prerelease ${goQuote(id)}`);
    return id;
  });
  for (const id of build) {
    if (id.length === 0) throw new Error('Build meta data is empty');
    if (!ALPHANUM.test(id)) throw new Error(`Invalid character(s) found in build meta data ${goQuote(id)}`);
  }
  return new Semver(major, minor, patch, prerelease, build);
}

/** Upstream's normalizeAndParse: `v1.02` reads as 1.2.0; a short version may not carry pre-release or build. */
export function normalizeAndParseSemver(input: string): Semver {
  const s = input.startsWith('v') ? input.slice(1) : input;
  const parts = splitN(s, '.', 3).map((p) => {
    if (p.length <= 1) return p;
    const t = p.replace(/^0+/, '');
    return t.length === 0 || !/^[0-9]/.test(t) ? `0${t}` : t;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1]!)) throw new Error('short version cannot contain PreRelease/Build meta data');
    while (parts.length < 3) parts.push('0');
  }
  return parseSemver(parts.join('.'));
}

/** Go's strings.SplitN. */
function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
}

const cmp = (a: bigint | string, b: bigint | string): number => (a < b ? -1 : a > b ? 1 : 0);

/** blang's Version.Compare: -1, 0 or 1. */
export function compareSemver(v: Semver, o: Semver): number {
  for (const [a, b] of [[v.major, o.major], [v.minor, o.minor], [v.patch, o.patch]] as const) if (a !== b) return cmp(a, b);
  if (v.pre.length === 0 && o.pre.length === 0) return 0;
  if (v.pre.length === 0) return 1;
  if (o.pre.length === 0) return -1;
  for (let i = 0; i < v.pre.length && i < o.pre.length; i++) {
    const a = v.pre[i]!;
    const b = o.pre[i]!;
    if (typeof a === typeof b) {
      const c = cmp(a, b);
      if (c !== 0) return c;
    } else return typeof a === 'bigint' ? -1 : 1; // numeric identifiers sort before alphanumeric ones
  }
  return v.pre.length === o.pre.length ? 0 : v.pre.length < o.pre.length ? -1 : 1;
}

export function registerSemverLibrary(env: Environment): void {
  const fn = (signature: string, handler: (...args: never[]) => unknown) => env.registerFunction(signature, handler as never);
  env.registerType('kubernetes.Semver', Semver);
  const parse = (s: string, normalize: boolean) => {
    charge(traversalCost(s.length));
    try {
      return normalize ? normalizeAndParseSemver(s) : parseSemver(s);
    } catch (e) {
      throw new CELFunctionError((e as Error).message);
    }
  };
  const valid = (s: string, normalize: boolean) => {
    try {
      parse(s, normalize);
      return true;
    } catch {
      return false;
    }
  };
  fn('semver(string): kubernetes.Semver', (s: string) => parse(s, false));
  fn('semver(string, bool): kubernetes.Semver', (s: string, normalize: boolean) => parse(s, normalize));
  fn('isSemver(string): bool', (s: string) => valid(s, false));
  fn('isSemver(string, bool): bool', (s: string, normalize: boolean) => valid(s, normalize));
  fn('kubernetes.Semver.major(): int', (v: Semver) => BigInt.asIntN(64, v.major));
  fn('kubernetes.Semver.minor(): int', (v: Semver) => BigInt.asIntN(64, v.minor));
  fn('kubernetes.Semver.patch(): int', (v: Semver) => BigInt.asIntN(64, v.patch));
  fn('kubernetes.Semver.isGreaterThan(kubernetes.Semver): bool', (v: Semver, o: Semver) => compareSemver(v, o) === 1);
  fn('kubernetes.Semver.isLessThan(kubernetes.Semver): bool', (v: Semver, o: Semver) => compareSemver(v, o) === -1);
  fn('kubernetes.Semver.compareTo(kubernetes.Semver): int', (v: Semver, o: Semver) => BigInt(compareSemver(v, o)));
}
