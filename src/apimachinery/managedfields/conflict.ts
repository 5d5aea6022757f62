/** The 409 an apply answers with on conflicts (apimachinery `internal/conflict.go`), texts exactly upstream's. */
import { StatusError, ConflictError } from '../errors.ts';
import { goQuote } from '../../util/goquote.ts';
import { parseIdentity } from './managed.ts';
import { pathString } from './pathelement.ts';
import type { Conflict } from './updater.ts';

/** `"name"` for appliers, `"name" using <apiVersion>` for updaters, plus ` with subresource "<s>"`. */
export function printManager(identity: string): string {
  let info;
  try {
    info = parseIdentity(identity);
  } catch {
    return goQuote(identity);
  }
  let s = goQuote(info.manager);
  if (info.subresource) s += ` with subresource ${goQuote(info.subresource)}`;
  if (info.operation === 'Update') s += ` using ${info.apiVersion}`;
  return s;
}

export function conflictMessage(conflicts: Conflict[]): string {
  if (conflicts.length === 1) {
    const c = conflicts[0]!;
    return `Apply failed with 1 conflict: conflict with ${printManager(c.manager)}: ${pathString(c.path)}`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const list = byManager.get(c.manager) ?? [];
    list.push(pathString(c.path));
    byManager.set(c.manager, list);
  }
  const lines: string[] = [];
  for (const m of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${printManager(m)}:`);
    for (const p of byManager.get(m)!) lines.push(`- ${p}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/** 409 Conflict whose details hold only the causes (upstream NewApplyConflict). */
export function newApplyConflict(conflicts: Conflict[]): StatusError {
  const causes = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.manager)}`,
    field: pathString(c.path),
  }));
  return new ConflictError(conflictMessage(conflicts), { causes });
}
