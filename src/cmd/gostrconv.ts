/**
 * The few Go `strconv` parsers pflag uses for flag values, with their exact error texts (they surface in
 * `invalid argument "x" for "--flag" flag: strconv.ParseInt: ...`). Hand-written: no package mirrors Go here.
 */
import { goQuote } from '../util/goquote.ts';

// Go integer literal syntax accepted by ParseInt with base 0 (prefixes and digit-separating underscores).
const BASE0 = /^[+-]?(?:0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0(?:_?[0-7])*|[1-9](?:_?\d)*)$/;
const BASE10 = /^[+-]?\d+$/;

/** strconv.ParseInt(s, base, bitSize) for base 0 or 10, returning a number (bitSize ≤ 53 is exact). */
export function parseGoInt(s: string, base: 0 | 10, bitSize: 32 | 64): number {
  const fail = (why: string) => new Error(`strconv.ParseInt: parsing ${goQuote(s)}: ${why}`);
  if (!(base === 0 ? BASE0 : BASE10).test(s)) throw fail('invalid syntax');
  const neg = s[0] === '-';
  let body = s.replace(/^[+-]/, '').replaceAll('_', '');
  if (base === 0 && /^0[0-7]+$/.test(body)) body = '0o' + body.slice(1); // a leading 0 means octal in Go
  if (base === 0 && /^0[oO]/.test(body)) body = '0o' + body.slice(2);
  const magnitude = BigInt(body);
  const limit = 1n << BigInt(bitSize - 1);
  if (neg ? magnitude > limit : magnitude >= limit) throw fail('value out of range');
  return Number(neg ? -magnitude : magnitude);
}

/** strconv.ParseBool: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False. */
export function parseGoBool(s: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  throw new Error(`strconv.ParseBool: parsing ${goQuote(s)}: invalid syntax`);
}
