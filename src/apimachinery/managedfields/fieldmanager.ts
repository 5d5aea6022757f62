/**
 * The field manager of one resource (apimachinery `internal/fieldmanager.go` and the managers it stacks):
 * `update` records a create, update or non-apply patch in `metadata.managedFields`; `apply` performs a
 * server-side apply. Objects are compared in their canonical typed form (the codec's), as upstream compares
 * typed objects, so `{}` labels and absent labels are the same thing.
 */
import type { KubeObject, ManagedFieldsEntry } from '../../apis/meta/v1/types.ts';
import { canonicalize, convertValue } from '../codec/index.ts';
import { newBadRequest, newUnclassified } from '../errors.ts';
import { formatTime } from '../codec/time.ts';
import type { Definitions } from '../schema.ts';
import { normalizeConfig } from './config.ts';
import { newApplyConflict } from './conflict.ts';
import { compareSignature, CreateFieldsMemo } from './create-memo.ts';
import { allowedConflictsFromLastApplied, KUBECTL_MANAGER, syncLastApplied } from './lastapplied.ts';
import {
  capUpdateManagers, cloneManaged, decodeManagedFields, emptyManaged, encodeManagedFields, formatSeconds,
  type Managed, ManagedFieldsDecodeError, managerIdentity, stripMeta,
} from './managed.ts';
import { TypedError } from './typed.ts';
import { type MapNode, typeOf } from './typeschema.ts';
import { applyOperation, ConflictsError, updateOperation } from './updater.ts';

export interface FieldManagerOptions {
  defs: Definitions;
  rootDef: string;
  /** The group/version entries are recorded in, e.g. `events.cluster.io/v1`. */
  apiVersion: string;
  /** The subresource writes go through (`status`): recorded in each entry, as upstream separates their owners. */
  subresource?: string;
}

export const BEFORE_FIRST_APPLY = 'before-first-apply';
const CURRENT_OPERATION = 'current-operation';

/** Exactly `[]` or `[{}]`: the documented way for a client to reset tracking. */
function isReset(entries: ManagedFieldsEntry[] | undefined | null): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  const e = entries[0] as Record<string, unknown> | null;
  return entries.length === 1 && e !== null && typeof e === 'object' && Object.values(e).every((v) => v === undefined);
}

type Obj = Record<string, unknown>;

export class FieldManager {
  private readonly defs: Definitions;
  private readonly rootDef: string;
  private readonly apiVersion: string;
  private readonly subresource: { subresource?: string };
  private readonly type: MapNode;
  /** What a create is compared with: the empty object in canonical form. */
  private readonly emptyObject: Obj;
  /** FieldsV1 of untracked creates by shape (see create-memo.ts). */
  private readonly createMemo = new CreateFieldsMemo();

  constructor(opts: FieldManagerOptions) {
    this.defs = opts.defs;
    this.rootDef = opts.rootDef;
    this.apiVersion = opts.apiVersion;
    this.subresource = opts.subresource ? { subresource: opts.subresource } : {};
    this.type = typeOf(opts.defs, opts.rootDef);
    this.emptyObject = convertValue({}, opts.defs, opts.rootDef).object;
  }

  /**
   * A create (live === null), update or non-apply patch by `manager`: sets next.metadata.managedFields. Sent
   * entries that decode and are non-empty replace the tracked state, `[]`/`[{}]` reset it, anything else keeps
   * live's; then the write is recorded on top (`time` = now for the writer if it changed something).
   */
  update(live: KubeObject | null, next: KubeObject, manager: string, now: Date): void {
    const sent = next.metadata.managedFields;
    let managed: Managed;
    if (isReset(sent)) managed = emptyManaged();
    else {
      let fromNext: Managed | null = null;
      if (Array.isArray(sent)) {
        try {
          fromNext = decodeManagedFields(sent);
        } catch (e) {
          if (!(e instanceof ManagedFieldsDecodeError)) throw e;
        }
      }
      managed = fromNext !== null && fromNext.fields.size > 0 ? fromNext : this.liveManaged(live);
    }
    delete next.metadata.managedFields;
    // Upstream does not start tracking an existing object on a non-apply write (only on create and on apply).
    if (managed.fields.size === 0 && live !== null && live.metadata.uid) return;
    const nextV = this.view(next);
    const signature = live === null && managed.fields.size === 0 ? this.createSignature(nextV) : undefined;
    if (signature !== undefined) {
      const known = this.createMemo.get(signature);
      if (known !== undefined) {
        if (known !== null) next.metadata.managedFields = [this.createEntry(manager || 'unknown', known, now)];
        return;
      }
    }
    try {
      const id = managerIdentity({ manager: manager || 'unknown', operation: 'Update', apiVersion: this.apiVersion, ...this.subresource });
      this.recordUpdate(this.view(live), nextV, managed, id, now);
    } catch (e) {
      if (!(e instanceof TypedError)) throw e;
      // As UpdateNoErrors: keep the previous entries rather than fail the write.
      if (live?.metadata.managedFields !== undefined) next.metadata.managedFields = live.metadata.managedFields;
      return;
    }
    const encoded = encodeManagedFields(managed);
    if (signature !== undefined && (encoded === undefined || encoded.length === 1)) this.createMemo.set(signature, encoded?.[0]!.fieldsV1 ?? null);
    if (encoded !== undefined) next.metadata.managedFields = encoded;
  }

  /** The shape key of an untracked create, or undefined when the general code must decide (it throws there). */
  private createSignature(nextV: Obj): string | undefined {
    try {
      return compareSignature(this.emptyObject, nextV, this.type);
    } catch {
      return undefined;
    }
  }

  /** The one entry an untracked create records, as encodeManagedFields writes it. */
  private createEntry(manager: string, fieldsV1: Readonly<Record<string, unknown>>, now: Date): ManagedFieldsEntry {
    return {
      manager,
      operation: 'Update',
      apiVersion: this.apiVersion,
      time: formatTime(now.getTime()),
      fieldsType: 'FieldsV1',
      fieldsV1: fieldsV1 as ManagedFieldsEntry['fieldsV1'],
    };
  }

  /**
   * Server-side apply of `config` (the request body as parsed JSON, not decoded into the canonical form, with
   * apiVersion/kind already checked) onto `live` (null: the object is created from config). Returns the object to
   * store, managedFields set; when nothing changed it equals `live`. Throws 409 on conflicts unless `force`,
   * 400 when config carries managedFields.
   */
  apply(live: KubeObject | null, config: KubeObject, manager: string, force: boolean, now: Date): KubeObject {
    const cm = config.metadata as Obj | undefined;
    if (cm !== undefined && cm !== null && cm['managedFields'] !== undefined && cm['managedFields'] !== null) {
      throw newBadRequest('metadata.managedFields must be nil');
    }
    let managed: Managed;
    try {
      managed = decodeManagedFields(live?.metadata.managedFields ?? []);
    } catch (e) {
      if (e instanceof ManagedFieldsDecodeError) throw newUnclassified(`failed to decode managed fields: ${e.message}`);
      throw e;
    }
    let configV: unknown;
    try {
      configV = normalizeConfig(config, this.type);
    } catch (e) {
      // Upstream answers 500 here, but the configuration is the client's: a 400 with upstream's text (issue 8).
      if (e instanceof TypedError) throw newBadRequest(`failed to create typed patch object (${gvknn(config)}): ${e.message}`);
      throw e;
    }
    // The caller checked apiVersion/kind against the endpoint; a stored object need not carry them.
    const liveV = live === null ? this.emptyObject : withTypeMeta(this.view(live), config);
    const id = managerIdentity({ manager: manager || 'unknown', operation: 'Apply', apiVersion: this.apiVersion, ...this.subresource });
    let result: { object: unknown; managed: Managed };
    try {
      try {
        result = this.applyOnce(liveV, configV, managed, id, force, now);
      } catch (e) {
        if (!(e instanceof ConflictsError)) throw e;
        if (manager !== KUBECTL_MANAGER) throw newApplyConflict(e.conflicts);
        // Client-side-apply interop: conflicts on fields kubectl last applied with today's values are forgiven.
        const allowed = allowedConflictsFromLastApplied(liveV, this.type, this.apiVersion);
        if (allowed === null) throw newApplyConflict(e.conflicts);
        const remaining = e.conflicts.filter((c) => !allowed.has(c.path));
        if (remaining.length > 0) throw newApplyConflict(remaining);
        result = this.applyOnce(liveV, configV, managed, id, true, now);
      }
    } catch (e) {
      if (e instanceof TypedError) throw newUnclassified(`failed to create typed live object (${gvknn(live ?? config)}): ${e.message}`);
      throw e;
    }
    let obj: KubeObject;
    if (result.object !== null) obj = convertValue(result.object, this.defs, this.rootDef).object as KubeObject;
    else {
      obj = structuredClone(live ?? (this.emptyObject as KubeObject));
      delete obj.metadata.managedFields;
    }
    if (manager === KUBECTL_MANAGER) syncLastApplied(obj, config);
    const encoded = encodeManagedFields(result.managed);
    if (encoded !== undefined) obj.metadata.managedFields = encoded;
    return obj;
  }

  private applyOnce(liveV: Obj, configV: unknown, managed: Managed, id: string, force: boolean, now: Date): { object: unknown; managed: Managed } {
    const m = cloneManaged(managed);
    if (m.fields.size === 0) {
      // An untracked object: what exists so far is attributed to an Update manager first.
      const before = managerIdentity({ manager: BEFORE_FIRST_APPLY, operation: 'Update', apiVersion: this.apiVersion });
      this.recordUpdate(this.emptyObject, liveV, m, before, now);
    }
    const r = applyOperation(liveV, configV, this.type, this.apiVersion, m.fields, id, force);
    stripMeta(r.managers, id);
    m.fields = r.managers;
    if (r.object !== null) m.times.set(id, formatSeconds(now));
    return { object: r.object, managed: m };
  }

  /** Records a non-apply change from `liveV` to `nextV` by manager identity `id` into `m` (mutated). */
  private recordUpdate(liveV: Obj, nextV: Obj, m: Managed, id: string, now: Date): void {
    const fields = updateOperation(liveV, nextV, this.type, this.apiVersion, m.fields, CURRENT_OPERATION);
    stripMeta(fields, CURRENT_OPERATION);
    const vs = fields.get(CURRENT_OPERATION);
    if (vs !== undefined) {
      fields.delete(CURRENT_OPERATION);
      const prev = fields.get(id);
      fields.set(id, { ...vs, set: prev === undefined ? vs.set : vs.set.union(prev.set) });
      m.times.set(id, formatSeconds(now));
    }
    m.fields = fields;
    capUpdateManagers(m);
  }

  private liveManaged(live: KubeObject | null): Managed {
    try {
      return decodeManagedFields(live?.metadata.managedFields ?? []);
    } catch (e) {
      if (e instanceof ManagedFieldsDecodeError) return emptyManaged();
      throw e;
    }
  }

  /** The canonical typed form of an object, without managedFields. */
  private view(obj: KubeObject | null): Obj {
    if (obj === null) return this.emptyObject;
    const c = canonicalize(obj, this.defs, this.rootDef);
    const meta = c['metadata'];
    if (meta !== null && typeof meta === 'object' && 'managedFields' in meta) {
      const rest = { ...(meta as Obj) };
      delete rest['managedFields'];
      return { ...c, metadata: rest };
    }
    return c;
  }
}

function withTypeMeta(v: Obj, config: KubeObject): Obj {
  const out = { ...v };
  if (config.apiVersion !== undefined) out['apiVersion'] = config.apiVersion;
  if (config.kind !== undefined) out['kind'] = config.kind;
  return out;
}

// Upstream's objectGVKNN: `<namespace>/<name>; <group>/<version>, Kind=<kind>`.
function gvknn(obj: KubeObject): string {
  const meta = (obj.metadata ?? {}) as Obj;
  const s = (v: unknown): string => (typeof v === 'string' ? v : '');
  return `${s(meta['namespace'])}/${s(meta['name'])}; ${s(obj.apiVersion)}, Kind=${s(obj.kind)}`;
}
