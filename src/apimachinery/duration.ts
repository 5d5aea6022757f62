/**
 * Go's time.ParseDuration and Duration.String(): `?timeout=`, flags and config files carry Go durations, and
 * clients read them back in Go's format. Hand-written to follow Go's grammar, overflow rules and error texts
 * exactly; computed in integer nanoseconds (BigInt) as Go does, exposed in milliseconds.
 */

const NS_PER_MS = 1_000_000n;
const MAX = 1n << 63n;
const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  '\u00b5s': 1_000n, // U+00B5 micro sign
  '\u03bcs': 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** time's own quote: ASCII as is (with `"` and `\` escaped), every byte of anything else as `\xNN`. */
function timeQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c >= 0x80 || c < 0x20) {
      for (const b of Buffer.from(ch, 'utf8')) out += '\\x' + b.toString(16).padStart(2, '0');
    } else {
      if (ch === '"' || ch === '\\') out += '\\';
      out += ch;
    }
  }
  return out + '"';
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** Go time.ParseDuration in nanoseconds; throws Error with Go's text. */
export function parseGoDurationNanos(orig: string): bigint {
  const invalid = () => new Error(`time: invalid duration ${timeQuote(orig)}`);
  let s = orig;
  let neg = false;
  if (s[0] === '-' || s[0] === '+') {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid();
  let d = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || isDigit(s[0]))) throw invalid();
    // leadingInt: [0-9]*, overflow beyond 2^63 is an error
    let i = 0;
    let v = 0n;
    while (isDigit(s[i])) {
      if (v > MAX / 10n) throw invalid();
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > MAX) throw invalid();
      i++;
    }
    const pre = i > 0;
    s = s.slice(i);
    // leadingFraction: (\.[0-9]*)?, digits past int64 precision are dropped, not an error
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s[0] === '.') {
      s = s.slice(1);
      let j = 0;
      let overflow = false;
      while (isDigit(s[j])) {
        if (!overflow) {
          const y = f * 10n + BigInt(s.charCodeAt(j) - 48);
          if (f > (MAX - 1n) / 10n || y > MAX) overflow = true;
          else {
            f = y;
            scale *= 10;
          }
        }
        j++;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) throw invalid();
    let u = 0;
    while (u < s.length && !(s[u] === '.' || isDigit(s[u]))) u++;
    if (u === 0) throw new Error(`time: missing unit in duration ${timeQuote(orig)}`);
    const unitName = s.slice(0, u);
    s = s.slice(u);
    const unit = UNITS[unitName];
    if (unit === undefined) throw new Error(`time: unknown unit ${timeQuote(unitName)} in duration ${timeQuote(orig)}`);
    if (v > MAX / unit) throw invalid();
    v *= unit;
    if (f > 0n) {
      // float64 arithmetic and truncation, exactly as Go does it
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > MAX) throw invalid();
    }
    d += v;
    if (d > MAX) throw invalid();
  }
  if (neg) return -d;
  if (d > MAX - 1n) throw invalid();
  return d;
}

/** Go time.ParseDuration, in milliseconds ("1h30m" → 5400000, "300ms" → 300, "1ns" → 0.000001). */
export function parseGoDuration(s: string): number {
  const ns = parseGoDurationNanos(s);
  return Number(ns / NS_PER_MS) + Number(ns % NS_PER_MS) / 1e6;
}

/** `.ddd` of v / 10^prec with trailing zeros dropped (no point when the fraction is 0), and the integer part. */
function fmtFrac(v: bigint, prec: number): [string, bigint] {
  const p = 10n ** BigInt(prec);
  const frac = (v % p).toString().padStart(prec, '0').replace(/0+$/, '');
  return [frac ? `.${frac}` : '', v / p];
}

/** Go Duration.String() of a nanosecond count: "1h0m0s", "1.5s", "300ms", "1.5µs", "0s". */
export function formatGoDurationNanos(d: bigint): string {
  const neg = d < 0n;
  let u = neg ? -d : d;
  let out: string;
  if (u < 1_000_000_000n) {
    if (u === 0n) return '0s';
    let unit: string;
    let prec: number;
    if (u < 1_000n) [unit, prec] = ['ns', 0];
    else if (u < 1_000_000n) [unit, prec] = ['\u00b5s', 3];
    else [unit, prec] = ['ms', 6];
    const [frac, int] = fmtFrac(u, prec);
    out = `${int}${frac}${unit}`;
  } else {
    const [frac, secs] = fmtFrac(u, 9);
    out = `${secs % 60n}${frac}s`;
    u = secs / 60n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}

/** Go Duration.String() of a millisecond count (rounded to whole nanoseconds). */
export function formatGoDuration(ms: number): string {
  const whole = Math.trunc(ms);
  return formatGoDurationNanos(BigInt(whole) * NS_PER_MS + BigInt(Math.round((ms - whole) * 1e6)));
}
