/**
 * JSON Patch (RFC 6902) as the apiserver applies it: operations checked the way its two decoders read them, at most
 * 10000 operations, and any failing operation reported as upstream's generic 422. Applying is fast-json-patch's.
 */
import fastJsonPatch from 'fast-json-patch';
import type { FieldValidation } from '../codec/types.ts';
import { EXCEEDED_MAX_DEPTH, MAX_NESTING_DEPTH, valueDepth } from '../codec/nesting.ts';
import { StatusError, newBadRequest, newRequestEntityTooLarge, InvalidError } from '../errors.ts';
import { PatchDecodeError, isMap, jsonKind, parsePatchJSON } from './body.ts';

export const MAX_JSON_PATCH_OPERATIONS = 10000;
/** Upstream's JSONPatchMaxCopyBytes: what `copy` operations may add up to (evanphx AccumulatedCopySizeLimit). */
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

const OP_FIELDS = new Set(['op', 'path', 'from', 'value']);

/** Upstream's NewGenericServerResponse(422): the library's text is dropped, the details stay empty. */
export function newUnprocessablePatch(): StatusError {
  return new InvalidError('the server rejected our request due to an error in our request', {});
}

export interface JSONPatchResult {
  document: unknown;
  /** Strict problems of the patch body itself (`json patch unknown field "[0].x"`). */
  strictProblems: string[];
}

/**
 * Applies a JSON Patch body to `doc` (which is modified). Under Warn/Strict the body is first read strictly into
 * the handler's op struct, as upstream does (errors prefixed `error decoding patch: `).
 */
export function applyJSONPatch(doc: unknown, body: Buffer, fv: FieldValidation): JSONPatchResult {
  const strict = fv !== 'Ignore';
  let parsed;
  try {
    parsed = parsePatchJSON(body);
  } catch (e) {
    if (e instanceof PatchDecodeError) throw newBadRequest(strict ? `error decoding patch: ${e.message}` : e.message);
    throw e;
  }
  const ops = parsed.value;
  const strictProblems: string[] = [];
  if (strict) {
    const typeErr = strictOpsError(ops);
    if (typeErr) throw newBadRequest(`error decoding patch: ${typeErr}`);
    for (const [i, op] of ((ops as unknown[] | null) ?? []).entries()) {
      for (const k of Object.keys(op as object)) if (!OP_FIELDS.has(k)) strictProblems.push(`json patch unknown field "[${i}].${k}"`);
    }
    strictProblems.push(...parsed.duplicates.map((d) => `json patch ${d}`));
  }
  // evanphx DecodePatch: an array of objects (null is an empty patch).
  if (ops !== null && !Array.isArray(ops)) throw newBadRequest(`json: cannot unmarshal ${jsonKind(ops)} into Go value of type jsonpatch.Patch`);
  const list = (ops ?? []) as unknown[];
  for (const op of list) {
    if (op !== null && !isMap(op)) throw newBadRequest(`json: cannot unmarshal ${jsonKind(op)} into Go value of type jsonpatch.Operation`);
  }
  if (list.length > MAX_JSON_PATCH_OPERATIONS) {
    throw newRequestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${list.length}`);
  }
  try {
    return { document: applyBounded(doc, list as fastJsonPatch.Operation[]), strictProblems };
  } catch (e) {
    if (e instanceof fastJsonPatch.JsonPatchError || e instanceof TypeError) throw newUnprocessablePatch();
    throw e;
  }
}

/**
 * Applies the operations one at a time, keeping the document within the nesting limit and `copy` within upstream's
 * size budget: `copy`/`move` can nest the document into itself (each doubling its depth or size), which no check
 * of the body can see. The depth is tracked as a bound (path length + value depth) and measured only when the bound
 * passes the limit.
 */
function applyBounded(doc: unknown, ops: fastJsonPatch.Operation[]): unknown {
  let bound = valueDepth(doc);
  let copied = 0;
  for (const [i, op] of ops.entries()) {
    const grows = op?.op === 'add' || op?.op === 'replace' || op?.op === 'copy' || op?.op === 'move';
    if (op?.op === 'copy' && typeof op.from === 'string') {
      copied += JSON.stringify(valueAt(doc, op.from) ?? null).length;
      if (copied > MAX_JSON_PATCH_COPY_BYTES) throw newUnprocessablePatch();
    }
    doc = fastJsonPatch.applyOperation(doc, op, true, true, true, i).newDocument;
    if (!grows) continue;
    const segments = typeof op.path === 'string' ? op.path.split('/').length - 1 : 0;
    const added = op.op === 'copy' || op.op === 'move' ? bound : valueDepth((op as { value?: unknown }).value);
    if (segments + added <= bound) continue;
    bound = segments + added;
    if (bound > MAX_NESTING_DEPTH && (bound = valueDepth(doc)) > MAX_NESTING_DEPTH) {
      throw newBadRequest(`the patched object ${EXCEEDED_MAX_DEPTH}`);
    }
  }
  return doc;
}

/** The value a pointer names, or undefined; a bad pointer is left for applyOperation to report. */
function valueAt(doc: unknown, pointer: string): unknown {
  try {
    return fastJsonPatch.getValueByPointer(doc, pointer);
  } catch {
    return undefined;
  }
}

/** The first type error of decoding into `[]handlers.jsonPatchOp` (op, path and from are strings). */
function strictOpsError(ops: unknown): string | null {
  if (ops === null) return null;
  if (!Array.isArray(ops)) return `json: cannot unmarshal ${jsonKind(ops)} into Go value of type []handlers.jsonPatchOp`;
  for (const op of ops) {
    if (op === null) continue;
    if (!isMap(op)) return `json: cannot unmarshal ${jsonKind(op)} into Go value of type handlers.jsonPatchOp`;
    for (const f of ['op', 'path', 'from']) {
      const v = op[f];
      if (v !== undefined && v !== null && typeof v !== 'string') {
        return `json: cannot unmarshal ${jsonKind(v)} into Go struct field jsonPatchOp.${f} of type string`;
      }
    }
  }
  return null;
}
