/**
 * Interop with client-side `kubectl apply` for the field manager `kubectl` (apimachinery `lastappliedmanager.go`,
 * `lastappliedupdater.go`, `lastapplied.go`): conflicts on fields that the last-applied-configuration annotation
 * lists with the live value are forgiven, and the annotation is kept in step with what was applied.
 */
import { jsonNestingDepth, MAX_NESTING_DEPTH } from '../codec/nesting.ts';
import { FieldSet } from './fieldset.ts';
import { normalizeConfig } from './config.ts';
import { sortedGoJSON } from './pathelement.ts';
import { compare, isMap, toFieldSet, TypedError } from './typed.ts';
import type { TypeNode } from './typeschema.ts';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
export const KUBECTL_MANAGER = 'kubectl';
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

function annotations(obj: unknown): Record<string, unknown> | undefined {
  if (!isMap(obj) || !isMap(obj['metadata'])) return undefined;
  const a = obj['metadata']['annotations'];
  return isMap(a) ? a : undefined;
}

/**
 * The fields whose conflicts may be forgiven: listed in the annotation with the live value. null when there is
 * no usable annotation (absent, not JSON, another apiVersion, not fitting the schema).
 */
export function allowedConflictsFromLastApplied(live: unknown, t: TypeNode, apiVersion: string): FieldSet | null {
  const text = annotations(live)?.[LAST_APPLIED_ANNOTATION];
  if (typeof text !== 'string' || text === '') return null;
  // JSON inside a string, which the body's nesting check could not see; the typed walks below recurse.
  if (jsonNestingDepth(text) > MAX_NESTING_DEPTH) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isMap(parsed) || parsed['apiVersion'] !== apiVersion) return null;
  try {
    const lastApplied = normalizeConfig(parsed, t);
    const set = toFieldSet(lastApplied, t);
    const c = compare(lastApplied, live, t);
    return set.difference(c.modified).difference(c.added).difference(c.removed);
  } catch (e) {
    if (e instanceof TypedError) return null;
    throw e;
  }
}

/** The annotation value for an applied config: its JSON without the annotation itself, as kubectl writes it. */
export function buildLastApplied(config: Record<string, unknown>): string {
  const meta = config['metadata'];
  if (isMap(meta) && isMap(meta['annotations'])) {
    const rest = { ...meta['annotations'] };
    delete rest[LAST_APPLIED_ANNOTATION];
    return sortedGoJSON({ ...config, metadata: { ...meta, annotations: rest } }) + '\n';
  }
  return sortedGoJSON(config) + '\n';
}

/** Rewrites the annotation on `obj` (mutated) if it has one; dropped when the annotations would grow too large. */
export function syncLastApplied(obj: Record<string, unknown>, config: Record<string, unknown>): void {
  const current = annotations(obj);
  const existing = current?.[LAST_APPLIED_ANNOTATION];
  if (current === undefined || typeof existing !== 'string' || existing === '') return;
  const next: Record<string, unknown> = { ...current, [LAST_APPLIED_ANNOTATION]: buildLastApplied(config) };
  let size = 0;
  for (const [k, v] of Object.entries(next)) size += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) delete next[LAST_APPLIED_ANNOTATION];
  (obj['metadata'] as Record<string, unknown>)['annotations'] = next;
}
