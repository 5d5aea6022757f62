/**
 * Numbers as Go's `strconv.FormatFloat(v, 'g', -1, 64)` writes them, which the Prometheus text format uses for every
 * value and bucket bound (`1e+06`, `1e-05`, `100000`, `+Inf`). JS `String()` differs (`1000000`, `0.00001`), and
 * scrapers compare `le` label values as strings, so this is written by hand.
 */
export function goFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  // Shortest round-trip digits, as Go's -1 precision: JS toExponential() without an argument gives exactly those.
  const [mantissa, e] = v.toExponential().split('e') as [string, string];
  const exp = Number(e);
  // Go's %g with the shortest precision switches to the exponent form below 1e-4 and from 1e+06 (eprec = 6).
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(v);
}
