/**
 * Strategic merge patch, server side (apimachinery `pkg/util/strategicpatch`, StrategicMergeMapPatch with
 * MergeParallelList and IgnoreUnmatchedNulls), driven by our schema's patch strategies: for Event,
 * `metadata.ownerReferences` merged by `uid` and `metadata.finalizers` merged as a set; every other list is
 * replaced, maps merge key by key. Directives: `$patch` (replace/delete), `$retainKeys`,
 * `$deleteFromPrimitiveList/<list>`, `$setElementOrder/<list>`. Errors carry upstream's texts and codes (400, or
 * the generic 422 for lists of lists). Hand-written: no JavaScript library implements Kubernetes' SMP.
 */
import type { Definition, Definitions, Schema } from '../schema.ts';
import { newBadRequest } from '../errors.ts';
import { hasKey, isMap, setKey } from './body.ts';
import { goSprint } from './go-format.ts';
import { newUnprocessablePatch } from './json-patch.ts';
import { dedupeScalars, keyOf, type Kind, noMergeKey, normalizeElementOrder, partition } from './list-order.ts';

type JSONMap = Record<string, unknown>;
type Node = Definition | Schema | null;

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

const ERR_RETAIN_KEYS = 'invalid patch format of retainKeys';
const ERR_PRIMITIVE_LIST = 'invalid patch format of primitive list';
const ERR_SET_ELEMENT_ORDER = 'invalid patch format of setElementOrder list';

interface FieldMeta {
  strategy: string;
  mergeKey: string;
  node: Node;
}

const NO_META: FieldMeta = { strategy: '', mergeKey: '', node: null };

/** The patch metadata of one type: what LookupPatchMetadataForStruct answers for its fields. */
export class PatchSchema {
  constructor(
    private readonly defs: Definitions,
    readonly root: string,
  ) {}

  rootNode(): Node {
    return this.defs.get(this.root) ?? null;
  }

  resolve(s: Schema): Node {
    if (s.type !== 'ref') return s;
    const d = this.defs.get(s.ref);
    return d && !d.stringFormat ? d : null;
  }

  lookup(node: Node, key: string): FieldMeta {
    if (node === null) return NO_META;
    if ('properties' in node) {
      const p = node.properties.find((x) => x.name === key);
      if (!p) throw newBadRequest(`unable to find api field in struct ${node.name.slice(node.name.lastIndexOf('.') + 1)} for the json field "${key}"`);
      const s = p.schema;
      if (s.type === 'array') return { strategy: s.patchStrategy ?? '', mergeKey: s.patchMergeKey ?? '', node: s };
      return { strategy: '', mergeKey: '', node: this.resolve(s) };
    }
    if (node.type === 'map') return { strategy: '', mergeKey: '', node: this.resolve(node.values) };
    return NO_META;
  }

  elementNode(node: Node): Node {
    return node !== null && !('properties' in node) && node.type === 'array' ? this.resolve(node.items) : null;
  }
}

/** Applies a parsed SMP map to `original`; both are modified (the patch loses its directives, as upstream's). */
export function strategicMergePatch(original: JSONMap, patch: JSONMap | null, schema: PatchSchema): JSONMap {
  if (patch === null) return original;
  return mergeMap(original, patch, schema.rootNode(), schema);
}

function mergeMap(original: JSONMap | null, patch: JSONMap, node: Node, schema: PatchSchema): JSONMap {
  if (hasKey(patch, DIRECTIVE)) return mapDirective(patch[DIRECTIVE], patch);
  const out = original ?? {};
  applyRetainKeys(out, patch);
  mergeOrderedLists(out, patch, node, schema);
  for (const k of Object.keys(patch)) {
    const pv = patch[k];
    let key = k;
    let isDeleteList = false;
    if (k.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      key = directiveTarget(k, DELETE_FROM_PRIMITIVE_LIST, ERR_PRIMITIVE_LIST);
      isDeleteList = true;
    }
    if (pv === null) {
      if (hasKey(out, key)) delete out[key];
      continue;
    }
    if (!hasKey(out, key) || goType(out[key]) !== goType(pv)) {
      if (!isDeleteList) {
        discardNulls(pv);
        const [v, keep] = removeDirectives(pv);
        if (keep) setKey(out, key, v);
        else delete out[key];
      }
      continue;
    }
    const ov = out[key];
    if (isMap(ov)) {
      const meta = schema.lookup(node, key);
      setKey(out, key, meta.strategy === 'replace' ? pv : mergeMap(ov, pv as JSONMap, meta.node, schema));
    } else if (Array.isArray(ov)) {
      setKey(out, key, mergeListField(ov, pv as unknown[], schema.lookup(node, key), isDeleteList, schema));
    } else {
      setKey(out, key, pv);
    }
  }
  return out;
}

function mapDirective(directive: unknown, patch: JSONMap): JSONMap {
  if (directive === 'replace') {
    delete patch[DIRECTIVE];
    return patch;
  }
  if (directive === 'delete') return {};
  // Upstream leaves this unmapped (a 500); it is the client's mistake, so 400.
  throw newBadRequest(`unknown patch type: ${goSprint(directive)} in map: ${goSprint(patch)}`);
}

/** `$retainKeys`: keys of the original not listed are cleared; every non-null patch key must be listed. */
function applyRetainKeys(original: JSONMap, patch: JSONMap): void {
  if (!hasKey(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw newBadRequest(ERR_RETAIN_KEYS);
  const keep = new Set(list);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep.has(k)) throw newBadRequest(ERR_RETAIN_KEYS);
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/** `$setElementOrder/<list>`: merges that list now and orders it (order list > patch order > live order). */
function mergeOrderedLists(original: JSONMap, patch: JSONMap, node: Node, schema: PatchSchema): void {
  for (const k of Object.keys(patch)) {
    if (!k.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[k];
    delete patch[k];
    const key = directiveTarget(k, SET_ELEMENT_ORDER, ERR_SET_ELEMENT_ORDER);
    const foundOriginal = hasKey(original, key);
    const foundPatch = hasKey(patch, key);
    const originalList = foundOriginal ? original[key] : [];
    const patchList = foundPatch ? patch[key] : [];
    if (!Array.isArray(order) || !Array.isArray(originalList) || !Array.isArray(patchList)) throw newBadRequest(ERR_SET_ELEMENT_ORDER);
    const meta = schema.lookup(node, key);
    validateOrderList(patchList, order, meta.mergeKey);
    let merged: unknown[];
    if (foundOriginal && foundPatch) merged = mergeListField(originalList, patchList, meta, false, schema);
    else if (foundPatch) merged = patchList;
    else if (foundOriginal) merged = originalList;
    else continue;
    const kind = elementKind([originalList, patchList]);
    if (kind !== null) {
      const [inOrder, serverOnly] = partition(merged, order, meta.mergeKey, kind);
      merged = normalizeElementOrder(inOrder, serverOnly, order, originalList, meta.mergeKey, kind);
    }
    setKey(original, key, merged);
    delete patch[key];
  }
}

/** The patch list's items must appear in the order list in the same relative order (deletions aside). */
function validateOrderList(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey ? patchList.filter((v) => !(isMap(v) && v[DIRECTIVE] === 'delete')) : patchList;
  let pi = 0;
  let oi = 0;
  while (pi < items.length && oi < order.length) {
    if (isMap(items[pi]) && hasKey(items[pi] as JSONMap, DIRECTIVE)) {
      pi++;
      continue;
    }
    if (keyOf(items[pi], mergeKey) === keyOf(order[oi], mergeKey)) pi++;
    oi++;
  }
  if (pi < items.length) {
    throw newBadRequest(`The order in patch list:\n${goSprint(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goSprint(order)}\n`);
  }
}

function directiveTarget(key: string, prefix: string, err: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) throw newBadRequest(err);
  return key.slice(slash + 1);
}

function mergeListField(original: unknown[], patch: unknown[], meta: FieldMeta, isDeleteList: boolean, schema: PatchSchema): unknown[] {
  if (meta.strategy !== 'merge') return patch;
  return mergeList(original, patch, meta.mergeKey, schema.elementNode(meta.node), isDeleteList, schema);
}

function mergeList(original: unknown[], patch: unknown[], mergeKey: string, elem: Node, isDeleteList: boolean, schema: PatchSchema): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind([original, patch])!;
  let merged: unknown[];
  if (kind === 'scalar') {
    if (isDeleteList) return original.filter((v) => !patch.includes(v));
    merged = dedupeScalars([...original, ...patch]);
  } else {
    if (!mergeKey) throw newBadRequest('cannot merge lists without merge key for type map');
    [original, patch] = applyListDirectives(original, patch, mergeKey);
    merged = [...original];
    for (const item of patch as JSONMap[]) {
      if (!hasKey(item, mergeKey)) throw noMergeKey(item, mergeKey);
      const at = findByKey(merged, mergeKey, item[mergeKey]);
      if (at >= 0) merged[at] = mergeMap(merged[at] as JSONMap, item, elem, schema);
      else merged.push(item);
    }
  }
  const [fromPatch, serverOnly] = partition(merged, patch, mergeKey, kind);
  return normalizeElementOrder(fromPatch, serverOnly, patch, original, mergeKey, kind);
}

/** Items `{<key>: v, $patch: delete}` remove entries; `{$patch: replace}` makes the list the other items. */
function applyListDirectives(original: unknown[], patch: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const plain: unknown[] = [];
  let replace = false;
  for (const v of patch as JSONMap[]) {
    if (!hasKey(v, DIRECTIVE)) {
      plain.push(v);
      continue;
    }
    const d = v[DIRECTIVE];
    if (d === 'delete') {
      if (!hasKey(v, mergeKey)) throw noMergeKey(v, mergeKey);
      original = original.filter((o) => !(isMap(o) && hasKey(o, mergeKey) && o[mergeKey] === v[mergeKey]));
    } else if (d === 'replace') {
      replace = true;
    } else if (d === 'merge') {
      throw newBadRequest('merging lists cannot yet be specified in the patch');
    } else {
      throw newBadRequest(`unknown patch type: ${goSprint(d)} in map: ${goSprint(v)}`);
    }
  }
  return replace ? [plain, []] : [original, plain];
}

function findByKey(list: unknown[], mergeKey: string, value: unknown): number {
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (!isMap(v)) throw newBadRequest(`value for key ${i} is not a map.`);
    if (hasKey(v, mergeKey) && v[mergeKey] === value) return i;
  }
  return -1;
}

/** The common element kind of the lists; null when all are empty. Lists of lists are refused (422 upstream). */
function elementKind(lists: unknown[][]): Kind | null {
  let prev: string | null = null;
  for (const l of lists) {
    for (const v of l) {
      const t = goType(v);
      if (prev === null) {
        if (t === 'slice') throw newUnprocessablePatch();
        prev = t;
      } else if (t !== prev) {
        throw newBadRequest(`list element types are not identical: ${goSprint(lists)}`);
      }
    }
  }
  return prev === null ? null : prev === 'map' ? 'map' : 'scalar';
}

/** reflect.TypeOf of a decoded value (integers decode as int64, other numbers as float64). */
function goType(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (Array.isArray(v)) return 'slice';
  if (typeof v === 'object') return 'map';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v;
}

/** A value new to the original carries no deletions: its null map entries are dropped. */
function discardNulls(v: unknown): void {
  if (Array.isArray(v)) v.forEach(discardNulls);
  else if (isMap(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (x === null) delete v[k];
      else discardNulls(x);
    }
  }
}

/** Drops maps carrying `$patch` from a new value; returns whether the value itself is kept. */
function removeDirectives(v: unknown): [unknown, boolean] {
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const x of v) {
      const [y, keep] = removeDirectives(x);
      if (keep) out.push(y);
    }
    return [out, true];
  }
  if (!isMap(v)) return [v, true];
  if (hasKey(v, DIRECTIVE)) return [null, false];
  for (const k of Object.keys(v)) {
    const [y, keep] = removeDirectives(v[k]);
    if (keep) setKey(v, k, y);
    else delete v[k];
  }
  return [v, true];
}
