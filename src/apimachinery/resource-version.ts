/**
 * resourceVersion parsing as the storage versioner does it (apiserver `pkg/storage/api_object_versioner.go`):
 * `''` and `'0'` mean "any", everything else must be a uint64 in base 10.
 */
import { invalid } from './field.ts';
import { newBadRequest } from './errors.ts';
import { goParseUint, GoNumError } from './strconv.ts';

/** The versioner's own error text: `resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`. */
function versionerError(s: string, e: GoNumError): string {
  return invalid('resourceVersion', s, e.message).text();
}

function parse(s: string, wrap: (text: string) => Error): number {
  if (s === '' || s === '0') return 0;
  try {
    return Number(goParseUint(s));
  } catch (e) {
    if (e instanceof GoNumError) throw wrap(versionerError(s, e));
    throw e;
  }
}

/**
 * For LIST (and deletecollection): `''` → 0; a malformed value is the 400 of storage.ValidateListOptions,
 * `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`.
 */
export function parseResourceVersion(s: string): number {
  return parse(s, (text) => newBadRequest(`invalid resource version: ${text}`));
}

/**
 * For GET and WATCH. Upstream's watch cache returns the versioner's error untyped, a reason-less 500; bad input must
 * never be a 5xx here, so this is a 400 BadRequest with upstream's text
 * (`resourceVersion: Invalid value: "abc": strconv.ParseUint: ...`).
 */
export function parseStorageResourceVersion(s: string): number {
  return parse(s, (text) => newBadRequest(text));
}
