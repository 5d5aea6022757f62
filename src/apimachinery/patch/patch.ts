/**
 * Applying a non-apply patch body to the versioned JSON of the current object (apiserver `handlers/patch.go`
 * jsonPatcher / smpPatcher): per patch type, how the body is read under each fieldValidation, which errors are
 * 400, 413 or 422, and the strict problems of the body itself.
 */
import { goJSON } from '../codec/encode.ts';
import type { FieldValidation } from '../codec/types.ts';
import { newBadRequest } from '../errors.ts';
import { PatchDecodeError, isMap, jsonKind, parsePatchJSON, type ParsedBody } from './body.ts';
import { goSprint } from './go-format.ts';
import { applyJSONPatch } from './json-patch.ts';
import { mergePatch } from './merge-patch.ts';
import { strategicMergePatch, type PatchSchema } from './strategic-merge.ts';

export type NonApplyPatchType = 'json' | 'merge' | 'strategic';

export interface Patched {
  /** The patched document, not yet decoded into the kind. */
  value: unknown;
  /** Strict problems found in the patch body (reported before those of the patched object). */
  strictProblems: string[];
  /** The text upstream shows as the invalid value when the result does not decode: JSON, or Go's %v of an SMP map. */
  shown(): string;
}

const MAP_TYPE = 'map[string]interface {}';

/** Applies `body` of `type` to `current` (which may be modified). Throws StatusErrors with upstream's texts. */
export function applyPatchBody(type: NonApplyPatchType, current: Record<string, unknown>, body: Buffer, fv: FieldValidation, schema: PatchSchema): Patched {
  const strict = fv !== 'Ignore';
  switch (type) {
    case 'json': {
      const r = applyJSONPatch(current, body, fv);
      return { value: r.document, strictProblems: r.strictProblems, shown: () => goJSON(r.document) };
    }
    case 'merge': {
      let parsed: ParsedBody;
      try {
        parsed = parsePatchJSON(body);
      } catch (e) {
        if (!(e instanceof PatchDecodeError)) throw e;
        throw newBadRequest(strict ? `error decoding patch: ${e.message}` : 'Invalid JSON Patch');
      }
      const p = parsed.value;
      if (strict && p !== null && !isMap(p)) throw newBadRequest(`error decoding patch: json: cannot unmarshal ${jsonKind(p)} into Go value of type ${MAP_TYPE}`);
      // evanphx MergePatch: a null or scalar patch is not a patch; an array replaces the document.
      if (p === null || (!isMap(p) && !Array.isArray(p))) throw newBadRequest('Invalid JSON Patch');
      const value = mergePatch(current, p);
      return { value, strictProblems: strict ? parsed.duplicates : [], shown: () => goJSON(value) };
    }
    case 'strategic': {
      let parsed: ParsedBody;
      try {
        parsed = parsePatchJSON(body);
      } catch (e) {
        if (e instanceof PatchDecodeError) throw newBadRequest(e.message);
        throw e;
      }
      const p = parsed.value;
      if (p !== null && !isMap(p)) throw newBadRequest(`json: cannot unmarshal ${jsonKind(p)} into Go value of type ${MAP_TYPE}`);
      const value = strategicMergePatch(current, p, schema);
      return { value, strictProblems: strict ? parsed.duplicates : [], shown: () => goSprint(p ?? {}) };
    }
  }
}
