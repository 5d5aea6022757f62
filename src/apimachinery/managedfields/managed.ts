/**
 * The tracked ownership of an object (apimachinery `internal/managedfields.go`, `buildmanagerinfo.go`,
 * `capmanagers.go`, `stripmeta.go`): one versioned field set per manager identity, plus the time each manager
 * last changed something; decoding from and encoding to `metadata.managedFields` in upstream's sort order.
 */
import type { ManagedFieldsEntry } from '../../apis/meta/v1/types.ts';
import { goJSON } from '../codec/index.ts';
import { FieldSet, FieldsV1Error } from './fieldset.ts';
import { fieldElement } from './pathelement.ts';

export interface VersionedSet {
  set: FieldSet;
  apiVersion: string;
  applied: boolean;
}

export interface Managed {
  /** Keyed by manager identity (see managerIdentity). */
  fields: Map<string, VersionedSet>;
  /** RFC 3339 times; a manager may have none (e.g. an applier that only took shared ownership). */
  times: Map<string, string>;
}

export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}

export function cloneManaged(m: Managed): Managed {
  return { fields: new Map(m.fields), times: new Map(m.times) };
}

export interface ManagerInfo {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource?: string;
}

/**
 * Upstream's manager identifier: the entry's JSON without time and fields, and without apiVersion for
 * appliers (one Apply entry per manager across versions). Conflict messages are grouped in this string's order.
 */
export function managerIdentity(m: ManagerInfo): string {
  // encoding/json of ManagedFieldsEntry: every field is omitempty.
  const parts: string[] = [];
  if (m.manager !== '') parts.push(`"manager":${goJSON(m.manager)}`);
  parts.push(`"operation":${goJSON(m.operation)}`);
  if (m.operation !== 'Apply' && m.apiVersion !== '') parts.push(`"apiVersion":${goJSON(m.apiVersion)}`);
  if (m.subresource) parts.push(`"subresource":${goJSON(m.subresource)}`);
  return `{${parts.join(',')}}`;
}

export function parseIdentity(id: string): ManagerInfo {
  const o = JSON.parse(id) as { manager?: string; operation?: string; apiVersion?: string; subresource?: string };
  const info: ManagerInfo = { manager: o.manager ?? '', operation: o.operation === 'Apply' ? 'Apply' : 'Update', apiVersion: o.apiVersion ?? '' };
  if (o.subresource) info.subresource = o.subresource;
  return info;
}

export class ManagedFieldsDecodeError extends Error {}

/** Decodes entries as upstream's DecodeManagedFields (same checks, same texts); a later duplicate identity wins. */
export function decodeManagedFields(entries: readonly ManagedFieldsEntry[]): Managed {
  const m = emptyManaged();
  entries.forEach((e, i) => {
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new ManagedFieldsDecodeError('operation must be `Apply` or `Update`');
    if (!e.apiVersion) throw new ManagedFieldsDecodeError('apiVersion must not be empty');
    if (!e.fieldsType) throw new ManagedFieldsDecodeError(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new ManagedFieldsDecodeError(`invalid fieldsType ${goJSON(e.fieldsType)} in managed fields entry ${i}`);
    const info: ManagerInfo = { manager: e.manager ?? '', operation: e.operation, apiVersion: e.apiVersion };
    if (e.subresource) info.subresource = e.subresource;
    const id = managerIdentity(info);
    let set: FieldSet;
    try {
      set = FieldSet.fromFieldsV1(e.fieldsV1);
    } catch (err) {
      if (err instanceof FieldsV1Error) throw new ManagedFieldsDecodeError(`error decoding versioned set: error decoding set: ${err.message}`);
      throw err;
    }
    m.fields.set(id, { set, apiVersion: e.apiVersion, applied: e.operation === 'Apply' });
    if (e.time) m.times.set(id, e.time);
    else m.times.delete(id);
  });
  return m;
}

const seconds = (t: string | undefined): number => (t === undefined ? 0 : Math.floor(Date.parse(t) / 1000) || 0);
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Entries sorted as upstream: Apply before Update, then by time (seconds), manager, apiVersion, subresource. */
export function encodeManagedFields(m: Managed): ManagedFieldsEntry[] | undefined {
  if (m.fields.size === 0) return undefined;
  const out: ManagedFieldsEntry[] = [];
  for (const [id, vs] of m.fields) {
    const info = parseIdentity(id);
    const e: ManagedFieldsEntry = { manager: info.manager, operation: vs.applied ? 'Apply' : info.operation, apiVersion: vs.apiVersion };
    const t = m.times.get(id);
    if (t !== undefined) e.time = t;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = vs.set.toFieldsV1();
    if (info.subresource) e.subresource = info.subresource;
    out.push(e);
  }
  return out.sort(
    (p, q) =>
      cmp(p.operation!, q.operation!) ||
      seconds(p.time) - seconds(q.time) ||
      cmp(p.manager!, q.manager!) ||
      cmp(p.apiVersion!, q.apiVersion!) ||
      cmp(p.subresource ?? '', q.subresource ?? ''),
  );
}

/** RFC 3339 with whole seconds in UTC, as metav1.Time marshals. */
export function formatSeconds(d: Date): string {
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}

export const MAX_UPDATE_MANAGERS = 10;
export const ANCIENT_CHANGES = 'ancient-changes';

/** Folds the oldest Update entries into `ancient-changes` (one per apiVersion) until at most 10 remain. */
export function capUpdateManagers(m: Managed, max = MAX_UPDATE_MANAGERS): void {
  const updaters = [...m.fields].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= max) return;
  updaters.sort((a, b) => seconds(m.times.get(a)) - seconds(m.times.get(b)) || cmp(a, b));
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i]!;
    const vs = m.fields.get(id)!;
    const time = m.times.get(id);
    const bucket = managerIdentity({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: vs.apiVersion });
    const first = firstByVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstByVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!m.fields.has(bucket)) {
      m.fields.set(bucket, m.fields.get(first)!);
      m.fields.delete(first);
    }
    m.fields.set(bucket, { set: vs.set.union(m.fields.get(bucket)!.set), apiVersion: vs.apiVersion, applied: vs.applied });
    m.fields.delete(id);
    length--;
    // The bucket takes the time of the newer update merged into it.
    if (time === undefined) m.times.delete(bucket);
    else m.times.set(bucket, time);
  }
}

/** System metadata that no manager ever owns. */
const STRIP = FieldSet.of(
  [fieldElement('apiVersion')],
  [fieldElement('kind')],
  [fieldElement('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((n) => [
    fieldElement('metadata'),
    fieldElement(n),
  ]),
);

/** Removes system metadata from one manager's set, dropping the manager when nothing is left. */
export function stripMeta(fields: Map<string, VersionedSet>, id: string): void {
  const vs = fields.get(id);
  if (vs === undefined) return;
  const set = vs.set.difference(STRIP);
  if (set.empty()) fields.delete(id);
  else fields.set(id, { ...vs, set });
}
