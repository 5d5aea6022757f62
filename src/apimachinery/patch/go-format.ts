/**
 * Go's `%v` rendering of decoded JSON (map[string]interface{} with sorted keys, []interface{}, int64/float64,
 * `<nil>`): upstream prints the strategic merge patch map this way in its 422 texts, and clients match on them.
 */

/** `fmt.Sprintf("%v", v)` for a value decoded as Go's `UnmarshalCaseSensitivePreserveInts` does. */
export function goSprint(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goSprint).join(' ')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).sort();
    return `map[${keys.map((k) => `${k}:${goSprint(o[k])}`).join(' ')}]`;
  }
  if (typeof v === 'number') return goFloatOrInt(v);
  return String(v);
}

/** Integers stay int64; other numbers print as strconv.FormatFloat(f, 'g', -1, 64), which `%v` uses. */
function goFloatOrInt(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return BigInt(n).toString();
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  const [mant, expText] = n.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  // Shortest 'g' formatting switches to an exponent below 1e-4 and from 1e6 up.
  if (exp < -4 || exp >= 6) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(n);
}
