/**
 * Ownership bookkeeping for one write (structured-merge-diff `merge/update.go`): an Update moves changed fields to
 * the writer, silently; an Apply merges the configuration, prunes what the applier stopped sending, and reports
 * conflicts with other managers unless forced. Values are JSON in the canonical typed form.
 */
import { FieldSet } from './fieldset.ts';
import { merge, removeItems } from './merge.ts';
import { jsonEqual, type PathElement } from './pathelement.ts';
import { compare, type Comparison, ensureNamedFieldsAreMembers as enf, toFieldSet } from './typed.ts';
import type { VersionedSet } from './managed.ts';
import type { TypeNode } from './typeschema.ts';

export type Managers = Map<string, VersionedSet>;

export interface Conflict {
  /** Manager identity. */
  manager: string;
  path: PathElement[];
}

/** Apply conflicts (upstream merge.Conflicts), in manager-identity order, then set order. */
export class ConflictsError extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super(`${conflicts.length} apply conflicts`);
  }
}

// Our API has a single version: entries recorded at any other apiVersion cannot be converted, so upstream drops them.
function reconcile(managers: Managers, version: string): Managers {
  const out: Managers = new Map();
  for (const [id, vs] of managers) if (vs.apiVersion === version) out.set(id, vs);
  return out;
}

function updateManagers(
  oldV: unknown, newV: unknown, t: TypeNode, managers: Managers, workflow: string, force: boolean,
): Comparison {
  const c = compare(oldV, newV, t);
  const changed = c.modified.union(c.added);
  const conflicts = new Map<string, FieldSet>();
  for (const [id, vs] of managers) {
    if (id === workflow) continue;
    const cs = vs.set.intersection(changed);
    if (!cs.empty()) conflicts.set(id, cs);
  }
  if (!force && conflicts.size > 0) {
    const list: Conflict[] = [];
    for (const id of [...conflicts.keys()].sort()) for (const path of conflicts.get(id)!.paths()) list.push({ manager: id, path });
    throw new ConflictsError(list);
  }
  const removedAny = !c.removed.empty();
  for (const [id, vs] of managers) {
    if (id === workflow) continue;
    let set = vs.set;
    const cs = conflicts.get(id);
    if (cs !== undefined) set = set.difference(cs);
    if (removedAny) set = set.difference(c.removed);
    if (set !== vs.set) managers.set(id, { ...vs, set });
  }
  for (const [id, vs] of managers) if (vs.set.empty()) managers.delete(id);
  return c;
}

/** A non-apply write by `id`: it gains what it added or modified and loses what it removed. */
export function updateOperation(live: unknown, next: unknown, t: TypeNode, version: string, managers: Managers, id: string): Managers {
  const m = reconcile(managers, version);
  const c = updateManagers(live, next, t, m, id, true);
  const prev = m.get(id)?.set ?? new FieldSet();
  const set = prev.difference(c.removed).union(c.modified).union(c.added);
  if (set.empty()) m.delete(id);
  else m.set(id, { set, apiVersion: version, applied: false });
  return m;
}

export interface ApplyResult {
  /** The merged value, or null when it equals `live` (nothing to write). */
  object: unknown;
  managers: Managers;
}

/** An apply of `config` by `id`. Throws ConflictsError unless `force`. */
export function applyOperation(
  live: unknown, config: unknown, t: TypeNode, version: string, managers: Managers, id: string, force: boolean,
): ApplyResult {
  const m = reconcile(managers, version);
  let merged = merge(live, config, t);
  const lastSet = m.get(id);
  m.set(id, { set: toFieldSet(config, t), apiVersion: version, applied: true });
  merged = prune(merged, m, t, lastSet);
  updateManagers(live, merged, t, m, id, force);
  return { object: jsonEqual(live, merged) ? null : merged, managers: m };
}

/**
 * Removes from `merged` what the applier owned before and no longer sends, unless some manager (the applier's new
 * set included) still owns it; struct fields whose whole subtree went unowned go too.
 */
function prune(merged: unknown, managers: Managers, t: TypeNode, lastSet: VersionedSet | undefined): unknown {
  if (lastSet === undefined || lastSet.set.empty()) return merged;
  const last = enf(lastSet.set, t);
  let pruned = removeItems(merged, last, t);
  // Add back what anyone owns.
  let owned = new FieldSet();
  for (const vs of managers.values()) owned = owned.union(vs.set);
  const mergedSet = enf(toFieldSet(merged, t), t);
  let prunedSet = enf(toFieldSet(pruned, t), t);
  pruned = removeItems(merged, mergedSet.difference(prunedSet.union(enf(owned, t))), t);
  // Add back what the applier never owned (removed above only because a parent went).
  prunedSet = enf(toFieldSet(pruned, t), t);
  return removeItems(merged, mergedSet.difference(prunedSet).intersection(last), t);
}
