/**
 * Field-label conversion (upstream scheme.ConvertFieldLabel): a view of a resource may name selectable fields
 * differently from the stored version (core/v1 `involvedObject.name` is events.cluster.io/v1 `regarding.name`), while
 * the watch cache computes one set of attributes per object. Relabelling the parsed selector lets both views filter
 * the same cached attributes.
 */
import { escapeFieldValue, parseFieldSelector, type FieldSelector } from './selector.ts';

/**
 * `sel` with each term's field renamed through `map` (fields not in the map are kept). The result is rebuilt by the
 * ordinary parser, so it is an ordinary selector (sorted terms, same matching and printing).
 */
export function relabelFieldSelector(sel: FieldSelector, map: ReadonlyMap<string, string>): FieldSelector {
  if (!sel.requirements.some((r) => map.has(r.field))) return sel;
  const terms = sel.requirements.map((r) => `${map.get(r.field) ?? r.field}${r.operator}${escapeFieldValue(r.value)}`);
  return parseFieldSelector(terms.join(','));
}
