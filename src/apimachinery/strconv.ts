/**
 * Go's strconv.ParseInt / ParseUint / ParseBool with their exact error texts: query parameters, resource versions,
 * label `>`/`<` operands and pflag values are parsed by these upstream, and the texts reach clients unchanged
 * (`strconv.ParseInt: parsing "x": invalid syntax`, `invalid argument "x" for "--port" flag: strconv.ParseInt: ...`).
 * Hand-written: Number()/parseInt accept forms Go rejects (" 1", "1e3", "0x10" in base 10) and lose precision
 * above 2^53, so range checks use BigInt; no npm package mirrors Go's syntax and texts.
 */
import { goQuote } from '../util/goquote.ts';

const UINT64_MAX = (1n << 64n) - 1n;
const DIGITS = /^[0-9]+$/;
const BASE10 = /^[+-]?[0-9]+$/;
// Go integer literal syntax accepted by ParseInt with base 0 (prefixes and digit-separating underscores).
const BASE0 = /^[+-]?(?:0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0(?:_?[0-7])*|[1-9](?:_?\d)*)$/;

/** Go's `*strconv.NumError`: `strconv.<fn>: parsing "<num>": <reason>`. */
export class GoNumError extends Error {
  constructor(
    readonly func: 'ParseInt' | 'ParseUint' | 'ParseBool',
    readonly num: string,
    readonly reason: 'invalid syntax' | 'value out of range',
  ) {
    super(`strconv.${func}: parsing ${goQuote(num)}: ${reason}`);
    this.name = 'GoNumError';
  }
}

/**
 * strconv.ParseInt(s, base, bitSize) for base 10 (an optional sign, then ASCII digits only) or base 0 (Go literal
 * syntax: `0x`, `0b`, `0o` and leading-`0` octal prefixes, `_` between digits). Throws GoNumError.
 */
export function goParseInt(s: string, base: 0 | 10 = 10, bitSize: 32 | 64 = 64): bigint {
  if (!(base === 0 ? BASE0 : BASE10).test(s)) throw new GoNumError('ParseInt', s, 'invalid syntax');
  const neg = s[0] === '-';
  let body = s.replace(/^[+-]/, '');
  if (base === 0) {
    body = body.replaceAll('_', '');
    if (/^0[0-7]+$/.test(body)) body = '0o' + body.slice(1); // a leading 0 means octal in Go
    else if (/^0[oO]/.test(body)) body = '0o' + body.slice(2); // BigInt takes only the lower-case prefix
  }
  const magnitude = BigInt(body);
  const limit = 1n << BigInt(bitSize - 1);
  if (neg ? magnitude > limit : magnitude >= limit) throw new GoNumError('ParseInt', s, 'value out of range');
  return neg ? -magnitude : magnitude;
}

/** strconv.ParseUint(s, 10, 64): ASCII digits only, no sign. Throws GoNumError. */
export function goParseUint(s: string): bigint {
  if (!DIGITS.test(s)) throw new GoNumError('ParseUint', s, 'invalid syntax');
  const v = BigInt(s);
  if (v > UINT64_MAX) throw new GoNumError('ParseUint', s, 'value out of range');
  return v;
}

/** True when strconv.ParseInt(s, 10, 64) would succeed. */
export function isGoInt64(s: string): boolean {
  try {
    goParseInt(s);
    return true;
  } catch {
    return false;
  }
}

const TRUE_TEXTS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_TEXTS = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** strconv.ParseBool: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False. Throws GoNumError. */
export function goParseBool(s: string): boolean {
  if (TRUE_TEXTS.has(s)) return true;
  if (FALSE_TEXTS.has(s)) return false;
  throw new GoNumError('ParseBool', s, 'invalid syntax');
}
