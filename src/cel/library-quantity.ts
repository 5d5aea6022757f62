/**
 * The Kubernetes quantity CEL library (upstream `apiserver/pkg/cel/library/quantity.go`, in the base environment since
 * 1.28) over apimachinery's resource.Quantity semantics: `quantity(s)`, `isQuantity(s)`, `sign()`, `isInteger()`,
 * `asInteger()`, `asApproximateFloat()`, `add()`/`sub()` (a quantity or an int), `isGreaterThan()`, `isLessThan()`,
 * `compareTo()`.
 *
 * A Quantity is kept the way apimachinery keeps it, because the answers depend on it: a small value is an int64
 * scaled by a power of ten (`1.5k` is 15×10²), anything else an arbitrary-precision decimal rounded away from zero to
 * nano units (binary-suffixed values capped at 2^63-1). `isInteger()` and `asInteger()` are true only for the int64
 * form at a non-negative scale that fits (so `quantity("1.0").isInteger()` is false, as upstream), and sums keep the
 * int64 form while they fit, unreduced. Comparisons are exact.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { charge, traversalCost } from './cost.ts';
import { CELFunctionError } from './library.ts';

const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);
const fitsInt64 = (v: bigint) => v >= MIN_INT64 && v <= MAX_INT64;
const NANO = -9;

/** cel type `kubernetes.Quantity`: `value × 10^scale`, in int64 form (`dec` false) or as a decimal. */
export class Quantity {
  constructor(
    readonly value: bigint,
    readonly scale: number,
    readonly dec: boolean,
  ) {}
}

export const ERR_FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const ERR_NUMERIC = 'unable to parse numeric part of quantity';
export const ERR_SUFFIX = "unable to parse quantity's suffix";

const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/** apimachinery's parseQuantityString: sign, numerator, denominator and suffix. */
function split(str: string): { positive: boolean; value: string; num: string; denom: string; suffix: string } {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') pos++;
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
  let i = pos;
  while (i < end && str[i]! >= '0' && str[i]! <= '9') i++;
  if (i >= end) return { positive, value: str, num: str.slice(pos), denom: '', suffix: '' };
  const num = str.slice(pos, i) || '0';
  pos = i;
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && str[i]! >= '0' && str[i]! <= '9') i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && 'eEinumkKMGTP'.includes(str[pos]!)) pos++;
  if (pos < end && (str[pos] === '-' || str[pos] === '+')) pos++;
  while (pos < end && str[pos]! >= '0' && str[pos]! <= '9') pos++;
  if (pos < end) throw new Error(ERR_FORMAT_WRONG);
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

/** The suffix's base, exponent and format (apimachinery's suffixer.interpret), or undefined. */
function interpret(suffix: string): { base: 10 | 2; exponent: number; binary: boolean } | undefined {
  if (Object.hasOwn(DECIMAL_SUFFIXES, suffix)) return { base: 10, exponent: DECIMAL_SUFFIXES[suffix]!, binary: false };
  if (Object.hasOwn(BINARY_SUFFIXES, suffix)) return { base: 2, exponent: BINARY_SUFFIXES[suffix]!, binary: true };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?[0-9]+$/.test(suffix.slice(1))) {
    const e = Number(suffix.slice(1));
    if (e >= -(2 ** 31) && e < 2 ** 31) return { base: 10, exponent: e, binary: false };
  }
  return undefined;
}

/** apimachinery's resource.ParseQuantity (the representation, not the canonical string). */
export function parseQuantity(str: string): Quantity {
  if (str.length === 0) throw new Error(ERR_FORMAT_WRONG);
  if (str === '0') return new Quantity(0n, 0, false);
  const { positive, value, num, denom, suffix } = split(str);
  const s = interpret(suffix);
  if (!s) throw new Error(ERR_SUFFIX);
  let precision = 0;
  let scale = 0;
  let mantissa = 1n;
  if (!s.binary) {
    scale = s.exponent;
    precision = 18 - (num.length + denom.length);
  } else if (s.exponent >= 0 && denom.length === 0) {
    mantissa = 1n << BigInt(s.exponent);
    precision = 15 - num.length - Math.trunc((s.exponent * 3) / 10) - 1;
  } else precision = -1;
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= NANO) {
      const shifted = BigInt(num + denom);
      const result = shifted * mantissa;
      // int64Multiply's overflow check: a value that does not fit takes the decimal path below.
      if (fitsInt64(result) && fitsInt64(shifted)) return new Quantity(positive ? result : -result, scale, false);
    }
  }
  // The decimal path: the exact value, rounded away from zero to nano units (a non-zero request gets something).
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(value);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new Error(ERR_NUMERIC);
  let unscaled = BigInt(`${m[2] || '0'}${m[3] ?? ''}`);
  let exp = -(m[3] ?? '').length;
  if (s.base === 10) exp += s.exponent;
  else unscaled <<= BigInt(s.exponent);
  // to nano units, rounding up in magnitude
  let nanos: bigint;
  if (exp >= NANO) nanos = unscaled * 10n ** BigInt(exp - NANO);
  else {
    const div = 10n ** BigInt(NANO - exp);
    nanos = unscaled / div + (unscaled % div === 0n ? 0n : 1n);
  }
  if (s.binary && nanos > MAX_INT64 * 1_000_000_000n) nanos = MAX_INT64 * 1_000_000_000n;
  if (m[1] === '-' || !positive) nanos = -nanos;
  return new Quantity(nanos, NANO, true);
}

/** int64Amount.AsInt64: only the int64 form at scale ≥ 0 whose value fits. */
export function asInt64(q: Quantity): bigint | undefined {
  if (q.dec || q.scale < 0) return undefined;
  const v = q.value * 10n ** BigInt(q.scale);
  return fitsInt64(v) ? v : undefined;
}

function compare(a: Quantity, b: Quantity): number {
  const e = Math.min(a.scale, b.scale);
  const x = a.value * 10n ** BigInt(a.scale - e);
  const y = b.value * 10n ** BigInt(b.scale - e);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Quantity.Add: int64 arithmetic at the smaller scale while it fits, else decimal. */
export function addQuantities(a: Quantity, b: Quantity): Quantity {
  if (!a.dec && !b.dec) {
    if (b.value === 0n) return a;
    if (a.value === 0n) return b;
    const e = Math.min(a.scale, b.scale);
    const x = a.value * 10n ** BigInt(a.scale - e);
    const y = b.value * 10n ** BigInt(b.scale - e);
    if (fitsInt64(x) && fitsInt64(y) && fitsInt64(x + y)) return new Quantity(x + y, e, false);
  }
  const e = Math.min(a.scale, b.scale);
  return new Quantity(a.value * 10n ** BigInt(a.scale - e) + b.value * 10n ** BigInt(b.scale - e), e, true);
}

const negate = (q: Quantity) => new Quantity(-q.value, q.scale, q.dec);

/** Go's math.Pow10 for the exponent: the correctly rounded power of ten. */
const pow10 = (e: number) => Number(`1e${e}`);

export function registerQuantityLibrary(env: Environment): void {
  const fn = (signature: string, handler: (...args: never[]) => unknown) => env.registerFunction(signature, handler as never);
  env.registerType('kubernetes.Quantity', Quantity);
  const parse = (s: string) => {
    charge(traversalCost(s.length));
    try {
      return parseQuantity(s);
    } catch (e) {
      throw new CELFunctionError((e as Error).message);
    }
  };
  fn('quantity(string): kubernetes.Quantity', parse);
  fn('isQuantity(string): bool', (s: string) => {
    try {
      parse(s);
      return true;
    } catch {
      return false;
    }
  });
  fn('kubernetes.Quantity.sign(): int', (q: Quantity) => BigInt(q.value === 0n ? 0 : q.value > 0n ? 1 : -1));
  fn('kubernetes.Quantity.isInteger(): bool', (q: Quantity) => asInt64(q) !== undefined);
  fn('kubernetes.Quantity.asInteger(): int', (q: Quantity) => {
    const v = asInt64(q);
    if (v === undefined) throw new CELFunctionError('cannot convert value to integer');
    return v;
  });
  fn('kubernetes.Quantity.asApproximateFloat(): double', (q: Quantity) => (q.scale === 0 ? Number(q.value) : Number(q.value) * pow10(q.scale)));
  fn('kubernetes.Quantity.add(kubernetes.Quantity): kubernetes.Quantity', (a: Quantity, b: Quantity) => addQuantities(a, b));
  fn('kubernetes.Quantity.add(int): kubernetes.Quantity', (a: Quantity, n: bigint) => addQuantities(a, new Quantity(n, 0, false)));
  fn('kubernetes.Quantity.sub(kubernetes.Quantity): kubernetes.Quantity', (a: Quantity, b: Quantity) => addQuantities(a, negate(b)));
  fn('kubernetes.Quantity.sub(int): kubernetes.Quantity', (a: Quantity, n: bigint) => addQuantities(a, new Quantity(-n, 0, false)));
  fn('kubernetes.Quantity.isGreaterThan(kubernetes.Quantity): bool', (a: Quantity, b: Quantity) => compare(a, b) === 1);
  fn('kubernetes.Quantity.isLessThan(kubernetes.Quantity): bool', (a: Quantity, b: Quantity) => compare(a, b) === -1);
  fn('kubernetes.Quantity.compareTo(kubernetes.Quantity): int', (a: Quantity, b: Quantity) => BigInt(compare(a, b)));
}
