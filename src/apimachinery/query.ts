/**
 * Query parameter decoding as apimachinery's parameter codec does it (`pkg/runtime/conversion.go`): the first value
 * of a repeated parameter wins, booleans are false only when absent, `0` or `false` (any case), integers are base-10
 * int64 and a bad one is a 400 carrying the raw strconv text.
 */
import { newBadRequest } from './errors.ts';
import { goParseInt, GoNumError } from './strconv.ts';

/**
 * A boolean parameter: `undefined` when absent; false for `0` or `false` in any case (Go's strings.EqualFold, which
 * also folds `ſ` to `s`); true for anything else, including the empty value of `?watch`.
 */
export function parseBoolParam(v: string | null): boolean | undefined {
  if (v === null) return undefined;
  if (v === '0') return false;
  // The only non-ASCII rune in Go's simple-fold orbit of the letters of "false" is ſ (U+017F, long s).
  return v.replace(/\u017f/g, 's').toLowerCase() !== 'false';
}

/**
 * An int64 parameter: `undefined` when absent, else strconv.ParseInt(v, 10, 64). A malformed value is a 400
 * BadRequest whose message is the bare strconv error (upstream does not name the parameter), e.g.
 * `strconv.ParseInt: parsing "x": invalid syntax`. Values beyond ±2^53 lose precision as JS numbers.
 */
export function parseIntParam(name: string, v: string | null): number | undefined {
  if (v === null) return undefined;
  try {
    return Number(goParseInt(v));
  } catch (e) {
    if (e instanceof GoNumError) throw newBadRequest(e.message);
    throw new Error(`parsing query parameter ${name}: ${String(e)}`);
  }
}
