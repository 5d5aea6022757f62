/**
 * JSON merge patch (RFC 7386). Hand-written: the algorithm is a dozen lines, and we need Go's (evanphx/json-patch)
 * top-level rules, which libraries differ on.
 */
import { hasKey, isMap, setKey } from './body.ts';

/** Merges `patch` into `target` (not modified): objects recursively, `null` deletes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isMap(patch)) return pruneNulls(patch);
  const out: Record<string, unknown> = {};
  if (isMap(target)) for (const k of Object.keys(target)) setKey(out, k, target[k]);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) {
      if (hasKey(out, k)) delete out[k];
    } else {
      setKey(out, k, mergePatch(hasKey(out, k) ? out[k] : undefined, v));
    }
  }
  return out;
}

// A replacing value carries no deletions: its nulls inside objects are dropped (evanphx pruneNulls).
function pruneNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(pruneNulls);
  if (!isMap(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) setKey(out, k, pruneNulls(x));
  return out;
}
