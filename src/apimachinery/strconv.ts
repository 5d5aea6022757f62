/**
 * Go's strconv.ParseInt / ParseUint in base 10, with their exact error texts: query parameters, resource versions
 * and label `>`/`<` operands are parsed by these upstream, and the texts reach clients unchanged
 * (`strconv.ParseInt: parsing "x": invalid syntax`). Hand-written: Number()/parseInt accept forms Go rejects
 * (" 1", "1e3", "0x10") and lose precision above 2^53, so range checks use BigInt.
 */
import { goQuote } from '../util/goquote.ts';

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const UINT64_MAX = (1n << 64n) - 1n;
const DIGITS = /^[0-9]+$/;

/** Go's `*strconv.NumError`: `strconv.<fn>: parsing "<num>": <reason>`. */
export class GoNumError extends Error {
  constructor(
    readonly func: 'ParseInt' | 'ParseUint',
    readonly num: string,
    readonly reason: 'invalid syntax' | 'value out of range',
  ) {
    super(`strconv.${func}: parsing ${goQuote(num)}: ${reason}`);
    this.name = 'GoNumError';
  }
}

/** strconv.ParseInt(s, 10, 64): an optional sign, then ASCII digits only. Throws GoNumError. */
export function goParseInt(s: string): bigint {
  let body = s;
  let neg = false;
  if (body[0] === '+' || body[0] === '-') {
    neg = body[0] === '-';
    body = body.slice(1);
  }
  if (!DIGITS.test(body)) throw new GoNumError('ParseInt', s, 'invalid syntax');
  const v = neg ? -BigInt(body) : BigInt(body);
  if (v > INT64_MAX || v < INT64_MIN) throw new GoNumError('ParseInt', s, 'value out of range');
  return v;
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
